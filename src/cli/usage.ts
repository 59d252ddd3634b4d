import type { OptionName } from './args/options.js';

// What every CLI file may need from the command line: the parsed arguments and the usage error.
// A leaf (options.ts imports nothing): command files import it without reaching the command
// table, which loads every command, so the CLI has no import cycle.

/** Bad usage: one line, then "see `berry-mcp help COMMAND`". */
export class UsageError extends Error {
  /** The command whose help to point at (a CommandName). */
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}

export type OptionValue = string | boolean | readonly string[];

export interface CliArgs {
  /** A name of the command table (a CommandName; typed as a string so this file imports no command). */
  readonly command: string;
  readonly positionals: readonly string[];
  /** Every flag given, by long name; check with the command's own option list. */
  readonly values: Readonly<Partial<Record<OptionName, OptionValue>>>;
  /** The number flags given, checked by the rules of the command's table entry. */
  readonly numbers: Readonly<Partial<Record<OptionName, number>>>;
  readonly config: string | undefined;
  readonly cwd: string | undefined;
  readonly ssh: string | undefined;
  readonly identity: string | undefined;
  readonly acceptHostKey: boolean;
  readonly json: boolean;
  readonly verbose: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly memoryMb: number | undefined;
  readonly out: string | undefined;
  readonly output: string | undefined;
  readonly refresh: boolean;
  readonly confirmWrites: boolean;
  readonly schemas: boolean;
}
