/**
 * Start failures, remembered per connection key (machine, lifetime, cwd, resolved-config
 * fingerprint): a server that failed to start or initialize is not started again within a window,
 * and operations on it fail at once with the recorded failure instead of each waiting out another
 * initialize timeout. The window starts at `initialMs` and doubles with each failure up to `maxMs`;
 * a success forgets it. A changed entry has another key, so it is tried at once.
 *
 * Only a start that really failed counts (a ServerStartError: the process exited or was not
 * found, no answer to initialize in time, connection refused, an HTTP error at connect). A needed
 * sign-in waits for the user, a config error is checked every operation anyway, and a call that
 * failed after connecting says nothing about the next start.
 */
import { ServerStartError } from '../../common/errors.js';

/** @default the first window after a failed start */
export const DEFAULT_START_BACKOFF_MS = 30_000;
/** The cap the window doubles up to: 20× the first, as seed 000 probes missing servers. */
export const DEFAULT_MAX_START_BACKOFF_MS = 600_000;

interface Failure {
  readonly error: ServerStartError;
  readonly failedAt: number;
  readonly windowMs: number;
  readonly retryAt: number;
}

/**
 * A start failure answered from the record, within its window: the code and details of the
 * failure itself (MCP_CONNECT_FAILED), plus when it happened and when the next attempt is due.
 */
export class StartBackoffError extends ServerStartError {
  /** When the recorded start failed (ms since epoch). */
  readonly failedAt: number;
  /** When the next start may be made (ms since epoch). */
  readonly retryAt: number;

  constructor(server: string, failure: Failure, now: number) {
    const { error } = failure;
    const inS = Math.max(1, Math.ceil((failure.retryAt - now) / 1000));
    super(
      `Server "${server}" is not started again for ${inS} s: its start at ${clock(failure.failedAt)} failed, and the next ` +
        `attempt is due at ${clock(failure.retryAt)} (failed starts back off, the wait doubling each time). That failure: ${error.message}\n` +
        `To try now: describe the server (mcp_describe), or list with refresh (berry-mcp list --refresh); a changed entry in mcp.json is tried at once.`,
      {
        server,
        ...(error.command === undefined ? {} : { command: error.command }),
        ...(error.exitCode === undefined ? {} : { exitCode: error.exitCode }),
        ...(error.signal === undefined ? {} : { signal: error.signal }),
        stderrTail: error.stderrTail,
        durationMs: 0,
      },
      { cause: error },
    );
    this.failedAt = failure.failedAt;
    this.retryAt = failure.retryAt;
  }
}

export class StartBackoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<string, Failure>();

  /** `initialMs` 0 turns the backoff off: every operation tries to start the server. */
  constructor(initialMs = DEFAULT_START_BACKOFF_MS, maxMs = DEFAULT_MAX_START_BACKOFF_MS) {
    this.#initialMs = initialMs;
    this.#maxMs = Math.max(initialMs, maxMs);
  }

  /** The recorded failure of `key` while its window lasts, as an error naming `server`. */
  pending(key: string, server: string, now = Date.now()): StartBackoffError | undefined {
    const failure = this.#failures.get(key);
    return failure && now < failure.retryAt ? new StartBackoffError(server, failure, now) : undefined;
  }

  /** How many windows are open now (the `berry.backoff.open` gauge). */
  open(now = Date.now()): number {
    let open = 0;
    for (const failure of this.#failures.values()) if (now < failure.retryAt) open++;
    return open;
  }

  /** True while a failure of `key` is on record, its window over or not (no start has succeeded since). */
  recorded(key: string): boolean {
    return this.#failures.has(key);
  }

  /** Records a failed start of `key`; anything but a real start failure is ignored. */
  failed(key: string, error: unknown, now = Date.now()): void {
    if (this.#initialMs === 0 || !(error instanceof ServerStartError)) return;
    const last = this.#failures.get(key);
    const windowMs = last ? Math.min(last.windowMs * 2, this.#maxMs) : this.#initialMs;
    this.#failures.set(key, { error, failedAt: now, windowMs, retryAt: now + windowMs });
    // Records of entries no longer tried (edited, removed) must not pile up: one whose window ended
    // more than the cap ago is forgotten, and that server's next failure starts the window over.
    for (const [other, failure] of this.#failures) if (now - failure.retryAt > this.#maxMs) this.#failures.delete(other);
  }

  /** A start of `key` succeeded: it is tried as usual from now on. */
  succeeded(key: string): void {
    this.#failures.delete(key);
  }
}

function clock(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}
