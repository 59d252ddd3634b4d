import { CancelledError, isBerryError } from '../common/errors.js';
import type { Machine } from '../remote/machine/index.js';
import type { ConnectionPool } from './pool/pool.js';
import { machinePrefix } from './pool/pool-key.js';

/** How long after the MCP connections' idle close the machine's own connection is released. */
const RELEASE_MARGIN_MS = 1000;

/**
 * Per-operation bookkeeping of one host: counts the operations running now, and releases the
 * machine's own connection (SSH) once the MCP connections on it have closed for idleness.
 */
export class MachineRelease {
  readonly #machine: Machine;
  readonly #pool: ConnectionPool;
  readonly #idleTimeoutMs: number;
  #active = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastActive = 0;
  #closed = false;

  constructor(machine: Machine, pool: ConnectionPool) {
    this.#machine = machine;
    this.#pool = pool;
    this.#idleTimeoutMs = pool.idleTimeoutMs;
  }

  /**
   * Wraps one operation so the machine's connection (SSH) is released once nothing runs on it.
   * Whatever an aborted operation fails with (a DOMException, the caller's reason), the caller
   * sees MCP_CANCELLED.
   */
  async run<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    this.enter(signal);
    try {
      return await fn();
    } catch (error) {
      throw operationFailure(signal, error);
    } finally {
      this.leave();
    }
  }

  /**
   * What `run` does around its operation, for an operation that is itself an async function (one
   * layer fewer on a call's way back): enter, then `leave()` in its finally, and its failures
   * through `operationFailure`.
   */
  enter(signal: AbortSignal | undefined): void {
    throwIfCancelled(signal);
    this.#active++;
  }

  leave(): void {
    this.#lastActive = Date.now();
    if (--this.#active === 0 && !this.#timer) this.#arm(this.#idleTimeoutMs + RELEASE_MARGIN_MS);
  }

  // Idle MCP connections close after idleTimeoutMs; the SSH connection under them follows once the
  // last of them is gone. One timer per quiet period, re-armed for what is left.
  #arm(delayMs: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#active > 0 || this.#closed) return;
      const left = this.#lastActive + this.#idleTimeoutMs + RELEASE_MARGIN_MS - Date.now();
      if (left > 0) this.#arm(left);
      else if (this.#pool.hasOpen(machinePrefix(this.#machine.identity))) this.#arm(RELEASE_MARGIN_MS);
      else void this.#machine.release().catch(() => {});
    }, delayMs);
    this.#timer.unref();
  }

  /** No release after this: the host closes the machine itself. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
  }
}

/** What an operation that failed throws: MCP_CANCELLED once its signal aborted, whatever the failure was. */
export function operationFailure(signal: AbortSignal | undefined, error: unknown): unknown {
  if (signal?.aborted && !(isBerryError(error) && error.code === 'MCP_CANCELLED')) {
    return new CancelledError('The operation was cancelled.', { cause: error });
  }
  return error;
}

/** A signal aborted before the operation started: MCP_CANCELLED, never the signal's own reason. */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('The operation was cancelled before it started.');
}
