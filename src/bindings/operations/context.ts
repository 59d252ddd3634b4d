/** What the host lends its operations: each is a function of (context, request, options). */
import type { LoadedConfig, ResolvedServerConfig } from '../../config/index.js';
import type { BerryError } from '../../common/errors.js';
import type { Machine } from '../../remote/machine/index.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import type { ObservedTypes } from '../catalog/observed-types/observer.js';
import type { ServerConnection } from '../connection/connection.js';
import type { ConnectionAuthOptions } from '../connection/start/auth-options.js';
import type { LogSink } from '../log.js';
import type { ApproveCall } from './approval/approval.js';
import type { ArgumentChecker } from './arguments/argument-check.js';
import type { ConnectionPool } from '../pool/pool.js';
import type { StartBackoff } from '../pool/start-backoff.js';
import type { ServerTextGate } from '../server-text/gate.js';

/** One operation's read of the config, with the pool scope and connection lifetime it was read under. */
export interface Prepared {
  readonly loaded: LoadedConfig;
  readonly lifetime: string;
  readonly scope: string;
}

export interface OperationContext {
  readonly machine: Machine;
  readonly log: LogSink;
  readonly pool: ConnectionPool;
  readonly store: CatalogStore | undefined;
  readonly observed: ObservedTypes;
  /** Servers that failed to start, not started again before their time (docs/reliability.md). */
  readonly backoff: StartBackoff;
  /** Counts an operation for the machine release, and maps an abort to MCP_CANCELLED. */
  operation<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T>;
  /** Reads the config now (the same object while nothing changed) and syncs the pool with it. */
  prepare(signal: AbortSignal | undefined): Promise<Prepared>;
  /** The entry named `server`, or MCP_UNKNOWN_SERVER / its config error / MCP_SERVER_DISABLED. */
  resolve(prepared: Prepared, server: string): ResolvedServerConfig;
  /**
   * One operation on the connection for `server`, with that server's entry as this operation read
   * it (answers take the name and filter from `entry`, never from the shared connection), and the
   * gate of this read of the config (its answer and error are masked through it).
   */
  withEntry<T>(
    server: string,
    fn: (connection: ServerConnection, entry: ResolvedServerConfig, gate: ServerTextGate) => Promise<T>,
    signal: AbortSignal | undefined,
    force?: boolean,
  ): Promise<T>;
  /** Runs `fn` on the pooled connection for `config` (its answer masked through the config's gate); `force` skips the backoff. */
  use<T>(
    prepared: Prepared,
    config: ResolvedServerConfig,
    fn: (connection: ServerConnection, gate: ServerTextGate) => Promise<T>,
    signal: AbortSignal | undefined,
    force?: boolean,
  ): Promise<T>;
  /** The recorded start failure of `config` while it backs off, unless a connect is open or under way. */
  pendingFailure(prepared: Prepared, config: ResolvedServerConfig): BerryError | undefined;
  /** The pool key of `config` under this read. */
  keyOf(prepared: Prepared, config: ResolvedServerConfig): string;
  /** Background work (saves, refreshes) that close() lets finish. */
  track(work: Promise<unknown>): void;
  /** The host's approval hook (a call's own takes its place). */
  readonly approveCall: ApproveCall | undefined;
  /** Checks a call's arguments against the tool's inputSchema. */
  readonly arguments: ArgumentChecker;
  /** Longest `arguments` of a call, as JSON. */
  readonly maxArgumentBytes: number;
  /** otel.captureArguments: a call's span carries its arguments, masked. */
  readonly captureArguments: boolean;
  /** How HTTP servers sign in (where tokens live, who opens the authorization URL). */
  readonly auth: ConnectionAuthOptions;
  /** `signal` joined with the host's close: a sign-in waiting for the user ends with the host. */
  openSignal(signal: AbortSignal | undefined): AbortSignal;
}
