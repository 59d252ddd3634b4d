import type { ProcessExit } from '../../machine/machine.js';

/** Why the transport gave up on a process that may still be running. */
export type StdioTransportFailure =
  | { readonly kind: 'message-too-large'; readonly bytes: number; readonly limitBytes: number }
  | { readonly kind: 'stdout-closed' }
  | { readonly kind: 'stdin-closed' }
  | { readonly kind: 'read-failed'; readonly message: string };

/**
 * What a stdio transport knows about how it failed, for error messages: the process's exit, why
 * the transport gave up on it, its stderr tail. The MCP layer reads this, never the transport class.
 */
export interface StdioDiagnostics {
  /** The process id on its machine, once started. */
  readonly pid: number | undefined;
  /** How the process ended, once it has. */
  readonly exit: ProcessExit | undefined;
  /** Set when the transport ended although the process had not exited (yet). */
  readonly failure: StdioTransportFailure | undefined;
  readonly stderrTail: string;
  /**
   * A request got no answer for `ms` while one unterminated line held stdout all that time: no
   * answer can ever get through it, so the transport has ended. True when it gave up.
   */
  abandonIfStuck(ms: number): boolean;
}
