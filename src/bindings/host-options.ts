/** The options of createHost (and createMcpHost), and the small checks that read them. */
import type { AuthorizationUrlHandler } from '../auth/index.js';
import type { Machine } from '../remote/machine/index.js';
import { openStore, type Store } from '../store/index.js';
import type { ApproveCall } from './operations/approval/approval.js';
import type { ElicitationHandler } from './handlers.js';
import type { LogSink } from './log.js';
import type { ConnectionPool } from './pool/pool.js';
import { DEFAULT_MAX_START_BACKOFF_MS, DEFAULT_START_BACKOFF_MS, StartBackoff } from './pool/start-backoff.js';

export interface McpHostOptions {
  /** Where config, `${VAR}` values, stdio servers and HTTP requests live. @default new LocalMachine() */
  readonly machine?: Machine;
  /** Working directory on the machine. @default process.cwd() */
  readonly cwd?: string;
  /** Config file; relative paths resolve against `cwd`, `~` on the machine. @default '~/.config/berry/mcp.json' */
  readonly configPath?: string;
  /** Close a connection after this long with nothing in flight. @default 300000 */
  readonly idleTimeoutMs?: number;
  /** Share connections with other hosts (still keyed by machine, lifetime, cwd and config). */
  readonly pool?: ConnectionPool;
  /** Connection lifecycle and server stderr, secrets redacted. */
  readonly onLog?: LogSink;
  /** Answers servers' `elicitation/create` requests; without it every elicitation is declined. */
  readonly onElicitation?: ElicitationHandler;
  /**
   * Longest message a stdio server may send (one line of its stdout). A longer one fails the
   * connection with MCP_MESSAGE_TOO_LARGE and stops the server. At most 536870888 (V8's longest
   * string). @default 268435456 (256 MiB)
   */
  readonly maxMessageBytes?: number;
  /** Largest serialized `arguments` of one call; larger ones reject MCP_INVALID_ARGUMENT unsent. @default 4194304 (4 MiB) */
  readonly maxArgumentBytes?: number;
  /**
   * OpenTelemetry (docs/observability.md). Spans and metrics go to whatever SDK the embedder
   * registered through @opentelemetry/api; with none, nothing is recorded.
   */
  readonly otel?: {
    /** Attach each call's arguments to its span (`gen_ai.tool.call.arguments`), masked like every output and cut at 4 KiB. @default false */
    readonly captureArguments?: boolean;
  };
  /**
   * Asked before every call to a tool without `readOnlyHint: true`; refusing rejects the call
   * with MCP_CALL_REFUSED and nothing is sent. Without it, calls go out unasked.
   */
  readonly approveCall?: ApproveCall;
  /**
   * Where sign-in records, saved catalogs and observed types (and serve's run states) are kept:
   * `file`, the machine's files, or a Redis a fleet of processes shares,
   * `redis://[:password@]HOST:PORT/DB` (`rediss://` for TLS), connected on first use. A Redis
   * store needs BERRY_STORE_KEY in the environment (32 bytes, base64 or hex: it encrypts the
   * sign-in records) or the host refuses to start (BERRY_STORE_KEY_INVALID); see docs/store.md.
   * @default 'file'
   */
  readonly store?: string;
  /** Put before every key of a Redis store, so several fleets can share one Redis. @default 'berry:' */
  readonly storePrefix?: string;
  /**
   * Save each server's tool catalog in the store after a listing (keyed by the resolved-config
   * fingerprint, no secrets), and let `list` answer from a saved one without starting the server,
   * refreshing it in the background once stale. `dir` defaults to `$XDG_CACHE_HOME/berry/catalogs`,
   * else `~/.cache/berry/catalogs`, on the machine. @default false (the CLI turns it on)
   */
  readonly savedCatalogs?: boolean | { readonly dir?: string };
  /**
   * Gets the user (or a test) to an OAuth authorization URL. With it, an operation that meets a
   * server needing sign-in runs the flow and continues once the redirect arrives (at most
   * `signInTimeoutMs`); berry-mcp waits for the redirect, not for this promise. Without it, such a
   * server fails with MCP_AUTH_REQUIRED. See docs/auth.md.
   */
  readonly onAuthorizationUrl?: AuthorizationUrlHandler;
  /** Token directory on the machine. @default '$XDG_CONFIG_HOME/berry/oauth' else '~/.config/berry/oauth' */
  readonly tokenDir?: string;
  /** How long a sign-in waits for the authorization server's redirect. @default 300000 */
  readonly signInTimeoutMs?: number;
  /**
   * After a server failed to start or initialize, operations on it fail at once with that failure
   * for this long, then one start is tried; each further failure doubles the wait, up to
   * `maxStartBackoffMs`. A changed entry, `describe` of the server and `list` with `refresh` try
   * at once; 0 turns it off. See docs/reliability.md. @default 30000
   */
  readonly startBackoffMs?: number;
  /** The longest wait between failed starts of one server. @default 600000 */
  readonly maxStartBackoffMs?: number;
}

/** The host's store (the `store` option), the file store's folders checked first. */
export function hostStore(machine: Machine, options: McpHostOptions): Store {
  const { tokenDir, savedCatalogs } = options;
  if (tokenDir !== undefined && !tokenDir.startsWith('/')) {
    throw new TypeError(`tokenDir must be an absolute path on the machine, got ${JSON.stringify(tokenDir)}`);
  }
  return openStore(machine, options, { tokenDir, catalogDir: typeof savedCatalogs === 'object' ? savedCatalogs.dir : undefined });
}

/** The start-failure record the options ask for, with their values checked. */
export function startBackoffOf(options: McpHostOptions): StartBackoff {
  const initial = options.startBackoffMs ?? DEFAULT_START_BACKOFF_MS;
  const max = options.maxStartBackoffMs ?? DEFAULT_MAX_START_BACKOFF_MS;
  for (const [name, value] of [
    ['startBackoffMs', initial],
    ['maxStartBackoffMs', max],
  ] as const) {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number of milliseconds, got ${String(value)}`);
  }
  return new StartBackoff(initial, max);
}

export function byteLimit(name: string, value: number | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new TypeError(`${name} must be a whole number of bytes from 1 to ${max}, got ${String(value)}`);
  }
  return value;
}

/** The caller's log sink, made unable to throw into the transports' event handlers. */
export function safeSink(sink: LogSink): LogSink {
  return (event) => {
    try {
      sink(event);
    } catch {
      // A failing log sink loses that event, nothing else.
    }
  };
}
