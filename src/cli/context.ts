import type { Readable, Writable } from 'node:stream';
import type { Host, HostOptions } from '../host.js';
import type { CliArgs } from './usage.js';

export interface CliIo {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable & { isTTY?: boolean; columns?: number };
  readonly stderr: Writable & { isTTY?: boolean; columns?: number };
  readonly cwd: string;
}

/** What a command handler gets; main owns the signal and closes the host afterwards. */
export interface CommandContext {
  readonly args: CliArgs;
  readonly io: CliIo;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /**
   * The host for --config/--cwd/--ssh/--verbose, created on first call (so commands that need no
   * server load none of the MCP code). `extra` is only honoured by the first call.
   */
  host(extra?: Partial<HostOptions>): Promise<Host>;
}

export type CommandHandler = (ctx: CommandContext) => Promise<number>;
