import { CancelledError } from './errors.js';
import { onAbort } from './abort.js';

/**
 * Work that several callers wait for (a connect, a catalog fetch). It runs under its own signal,
 * never a caller's: a caller whose signal aborts stops waiting with MCP_CANCELLED, and the work
 * itself is abandoned only when every waiter has gone (or `abort()` is called, on close).
 */
export class SharedWork<T> {
  readonly promise: Promise<T>;
  readonly #controller = new AbortController();
  #waiters = 0;
  #settled = false;
  #fulfilled = false;

  constructor(run: (signal: AbortSignal) => Promise<T>) {
    this.promise = run(this.#controller.signal);
    // Handled here so that work every waiter has left never becomes an unhandled rejection.
    this.promise.then(
      () => {
        this.#settled = true;
        this.#fulfilled = true;
      },
      () => {
        this.#settled = true;
      },
    );
  }

  /** True once the work was aborted: it will reject, so new callers must start their own. */
  get abandoned(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Abandons the work whoever waits (host closed). */
  abort(): void {
    if (!this.#settled) this.#controller.abort();
  }

  /**
   * Waits for the work on behalf of one caller. Its `signal` ends only its own wait, with a
   * CancelledError saying `${what} was cancelled.`; the last waiter to leave abandons the work.
   */
  join(signal: AbortSignal | undefined, what: string): Promise<T> {
    if (signal?.aborted) return Promise.reject(new CancelledError(`${what} was cancelled.`));
    if (this.#fulfilled || signal === undefined) {
      // Nothing to leave early from: such a waiter stays until the work settles.
      if (!this.#settled) {
        this.#waiters++;
        const left = (): void => {
          this.#waiters--;
        };
        this.promise.then(left, left);
      }
      return this.promise;
    }
    this.#waiters++;
    return new Promise<T>((resolve, reject) => {
      let waiting = true;
      const leave = (): boolean => {
        if (!waiting) return false;
        waiting = false;
        forget();
        this.#waiters--;
        return true;
      };
      const forget = onAbort(signal, () => {
        if (!leave()) return;
        reject(new CancelledError(`${what} was cancelled.`));
        if (this.#waiters === 0) this.abort();
      });
      this.promise.then(
        (value) => {
          if (leave()) resolve(value);
        },
        (error: unknown) => {
          if (leave()) reject(error);
        },
      );
    });
  }
}
