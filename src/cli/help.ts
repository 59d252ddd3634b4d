import { COMMANDS, type CommandName, type CommandSpec } from './commands.js';
import { HOST_OPTIONS, OPTIONS, optionSynopsis, type OptionName } from './args/options.js';
import { table } from './output/render.js';

const EXIT = `Exit status: 0 success; 1 the script failed or a tool returned isError; 2 bad usage, bad config,
or a server that could not be reached.`;

function optionRows(names: readonly OptionName[], spec?: CommandSpec): string[][] {
  return names.map((name) => [optionSynopsis(name), spec?.optionHelp?.[name] ?? OPTIONS[name].help]);
}

/** `berry-mcp help`: every command, then the options they share. */
export function overviewHelp(): string {
  const commands = table(
    Object.values(COMMANDS as Record<string, CommandSpec>).map((spec) => [`berry-mcp ${spec.usage}`, spec.summary]),
    '  ',
  );
  return [
    'Usage:',
    commands,
    '',
    'Common options:',
    table(optionRows([...HOST_OPTIONS, 'help']), '  '),
    '',
    "Run `berry-mcp help COMMAND` for a command's own options and examples.",
    '',
    EXIT,
  ].join('\n');
}

/** `berry-mcp help COMMAND` and `berry-mcp COMMAND -h`. */
export function commandHelp(name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  const own = spec.options.filter((o) => !HOST_OPTIONS.includes(o) && o !== 'help');
  const shared = spec.options.filter((o) => HOST_OPTIONS.includes(o) || o === 'help');
  const lines = [`Usage: berry-mcp ${spec.usage}`, '', `${spec.summary.charAt(0).toUpperCase() + spec.summary.slice(1)}.`, '', spec.details];
  if (own.length > 0) lines.push('', 'Options:', table(optionRows(own, spec), '  '));
  if (shared.length > 0) lines.push('', own.length > 0 ? 'Common options:' : 'Options:', table(optionRows(shared, spec), '  '));
  lines.push('', EXIT);
  return lines.join('\n');
}
