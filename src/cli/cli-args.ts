import type { OptionName } from './options.js';

// The parsed command line as handlers see it. A leaf: command files import it without reaching
// the command table (which imports every command), so the CLI has no import cycle.

export type OptionValue = string | boolean | readonly string[];

export interface CliArgs {
  /** A name of the command table (a CommandName; typed as a string so this file imports no command). */
  readonly command: string;
  readonly positionals: readonly string[];
  /** Every flag given, by long name; check with the command's own option list. */
  readonly values: Readonly<Partial<Record<OptionName, OptionValue>>>;
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
