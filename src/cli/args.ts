import { COMMANDS, isRawCommand, type CommandName, type CommandSpec, type RawCommandSpec } from './commands.js';
import { OPTIONS, type OptionName, type OptionSpec } from './options.js';
import type { CliArgs, OptionValue } from './cli-args.js';
import { didYouMean } from './suggest.js';
import { UsageError } from './usage-error.js';

export type { CliArgs, OptionValue } from './cli-args.js';
export { UsageError } from './usage-error.js';

export type ParsedArgs =
  | CliArgs
  | { readonly help: true; readonly command: CommandName | undefined }
  | { readonly version: true };

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
        throw new UsageError(`unknown option "${token}".${didYouMean(token, [...SHORT.keys()].map((s) => `-${s}`))}`);
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

function numberFlag(flag: string, value: OptionValue | undefined, command: CommandName, min: number, max: number, unit: string): number | undefined {
  if (typeof value !== 'string') return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`${flag} needs a number of ${unit} from ${min} to ${max}, got "${value}"`, command);
  }
  return n;
}

/** The runtime's own bounds: a timer can wait at most 2^31-1 ms; isolated-vm needs 8 MB. */
const MAX_TIMEOUT_SECONDS = 2_147_483;
const MIN_MEMORY_MB = 8;
const MAX_MEMORY_MB = 65_536;

function wholeNumber(flag: string, n: number | undefined, command: CommandName): number | undefined {
  if (n !== undefined && !Number.isInteger(n)) throw new UsageError(`${flag} needs a whole number of MB, got ${n}`, command);
  return n;
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
  const entry: CommandSpec | RawCommandSpec = COMMANDS[command];
  // main hands a self-parsing command its arguments when it comes first; anywhere else it is a mistake.
  if (isRawCommand(entry)) throw new UsageError(`put ${command} first: berry-mcp ${entry.usage}`, command);
  const spec = entry;
  for (const option of Object.keys(values) as OptionName[]) {
    if (!spec.options.includes(option)) throw new UsageError(`${command} does not take --${option}`, command);
  }
  const [min, max] = spec.arity;
  if (rest.length < min) throw new UsageError(`${command} needs ${spec.usage.split(' ').slice(1, 1 + min).join(' ')}`, command);
  if (rest.length > max) throw new UsageError(`${command} takes at most ${max} argument(s), got ${rest.length}: ${rest.join(' ')}`, command);
  return {
    command,
    positionals: rest,
    values,
    config: str(values.config),
    cwd: str(values.cwd),
    ssh: str(values.ssh),
    identity: str(values.identity),
    acceptHostKey: values['accept-host-key'] === true,
    json: values.json === true,
    verbose: values.verbose === true,
    timeoutSeconds: numberFlag('--timeout', values.timeout, command, 0.001, MAX_TIMEOUT_SECONDS, 'seconds'),
    memoryMb: wholeNumber('--memory', numberFlag('--memory', values.memory, command, MIN_MEMORY_MB, MAX_MEMORY_MB, 'MB'), command),
    out: str(values.out),
    output: str(values.output),
    refresh: values.refresh === true,
    confirmWrites: values['confirm-writes'] === true,
    schemas: values.schemas === true,
  };
}
