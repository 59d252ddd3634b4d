// The `berry-mcp` command run as a person runs it: through the launcher, with pipes or on a terminal.
import { join } from 'node:path';
import { PROJECT_ROOT } from './paths.js';
import { runProcess, type CliOptions, type CliResult } from './processes.js';

/** The `berry-mcp` command as npm links it (node_modules/.bin/berry-mcp → bin/berry-mcp). */
export const LAUNCHER = join(PROJECT_ROOT, 'bin', 'berry-mcp');

/** Runs `berry-mcp ARGS…` through the launcher, with pipes for stdin, stdout and stderr. */
export function berry(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return runProcess(LAUNCHER, args, options);
}

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs `berry-mcp ARGS…` on a pseudo-terminal (util-linux `script`): stdout and stderr both arrive as stdout. */
export function berryOnTty(args: readonly string[], options: CliOptions): Promise<CliResult> {
  const command = [LAUNCHER, ...args].map(quote).join(' ');
  return runProcess('script', ['-qfec', command, '/dev/null'], options);
}
