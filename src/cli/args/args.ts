import { COMMANDS, type CommandName, type CommandSpec } from '../commands.js';
import { OPTIONS, type OptionName, type OptionSpec } from './options.js';
import type { NumberRule } from './number-flags.js';
import { didYouMean } from './suggest.js';
import { UsageError, type CliArgs, type OptionValue } from '../usage.js';

export type ParsedArgs = CliArgs | { readonly help: true; readonly command: CommandName | undefined } | { readonly version: true };

const SHORT = new Map<string, OptionName>(
  Object.entries(OPTIONS as Record<string, OptionSpec>).flatMap(([name, spec]) =>
    spec.short === undefined ? [] : [[spec.short, name as OptionName] as const],
  ),
);

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

function unknownCommand(name: string): UsageError {
  return new UsageError(`unknown command "${name}".${didYouMean(name, Object.keys(COMMANDS))}`);
}

/** Splits argv into flags and positionals; flags may come anywhere, `--` ends them. */
function tokenize(argv: readonly string[]): { values: Partial<Record<OptionName, OptionValue>>; positionals: string[] } {
  const values: Partial<Record<OptionName, OptionValue>> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (token === '-' || !token.startsWith('-')) {
      positionals.push(token);
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      name = eq === -1 ? token.slice(2) : token.slice(2, eq);
      inline = eq === -1 ? undefined : token.slice(eq + 1);
    } else {
      const long = SHORT.get(token.slice(1, 2));
      if (long === undefined || token.length > 2) {
        throw new UsageError(
          `unknown option "${token}".${didYouMean(
            token,
            [...SHORT.keys()].map((s) => `-${s}`),
          )}`,
        );
      }
      name = long;
    }
    if (!Object.hasOwn(OPTIONS, name)) {
      throw new UsageError(`unknown option "--${name}".${didYouMean(name, Object.keys(OPTIONS), (n) => `--${n}`)}`);
    }
    const spec: OptionSpec = OPTIONS[name as OptionName];
    const flag = token.startsWith('--') ? `--${name}` : token;
    let value: string | boolean;
    if (spec.type === 'boolean') {
      if (inline !== undefined) throw new UsageError(`${flag} takes no value`);
      value = true;
    } else if (inline !== undefined) {
      value = inline;
    } else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-')) throw new UsageError(`${flag} needs a value (${spec.arg ?? 'VALUE'})`);
      value = next;
      i++;
    }
    const key = name as OptionName;
    if (spec.multiple) values[key] = [...((values[key] as readonly string[] | undefined) ?? []), value as string];
    else values[key] = value;
  }
  return { values, positionals };
}

/** The number flags given, read by the command's own rules in their order. */
function numbers(command: CommandName, spec: CommandSpec, values: Partial<Record<OptionName, OptionValue>>): Partial<Record<OptionName, number>> {
  const read: Partial<Record<OptionName, number>> = {};
  for (const [name, rule] of Object.entries(spec.numbers ?? {}) as [OptionName, NumberRule][]) {
    const value = values[name];
    if (typeof value !== 'string') continue;
    try {
      read[name] = rule(value, `--${name}`);
    } catch (error) {
      throw error instanceof UsageError ? new UsageError(error.message, command) : error;
    }
  }
  return read;
}

function str(value: OptionValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  // `help run` and `run --help` are the same; parse leniently enough to find the command first.
  if (argv[0] === 'help') {
    const topic = argv[1];
    if (topic === undefined || topic.startsWith('-')) return { help: true, command: undefined };
    if (!isCommand(topic)) throw unknownCommand(topic);
    return { help: true, command: topic };
  }
  let tokens;
  try {
    tokens = tokenize(argv);
  } catch (error) {
    // Point the reader at the command's own help when the command is already known.
    const named = argv.find((token) => isCommand(token));
    if (error instanceof UsageError && named !== undefined) throw new UsageError(error.message, named as CommandName);
    throw error;
  }
  const { values, positionals } = tokens;
  const [name, ...rest] = positionals;
  if (name !== undefined && !isCommand(name)) throw unknownCommand(name);
  const command = name as CommandName | undefined;
  if (values.help) return { help: true, command };
  if (values.version) return { version: true };
  if (command === undefined) throw new UsageError('missing command');
  const spec: CommandSpec = COMMANDS[command];
  for (const option of Object.keys(values) as OptionName[]) {
    if (!spec.options.includes(option)) throw new UsageError(`${command} does not take --${option}`, command);
  }
  const [min, max] = spec.arity;
  if ((rest.length < min || rest.length > max) && spec.arityError) throw new UsageError(spec.arityError(rest), command);
  if (rest.length < min)
    throw new UsageError(
      `${command} needs ${spec.usage
        .split(' ')
        .slice(1, 1 + min)
        .join(' ')}`,
      command,
    );
  if (rest.length > max) throw new UsageError(`${command} takes at most ${max} argument(s), got ${rest.length}: ${rest.join(' ')}`, command);
  const read = numbers(command, spec, values);
  return {
    command,
    positionals: rest,
    values,
    numbers: read,
    config: str(values.config),
    cwd: str(values.cwd),
    ssh: str(values.ssh),
    identity: str(values.identity),
    acceptHostKey: values['accept-host-key'] === true,
    json: values.json === true,
    verbose: values.verbose === true,
    timeoutSeconds: read.timeout,
    memoryMb: read.memory,
    out: str(values.out),
    output: str(values.output),
    refresh: values.refresh === true,
    confirmWrites: values['confirm-writes'] === true,
    schemas: values.schemas === true,
  };
}
