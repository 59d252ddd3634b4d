import { BerryError } from '../errors.js';

/**
 * A FIFO gate that lets at most `limit` runs execute at once. A waiter whose signal aborts
 * leaves the queue without ever taking a slot.
 */
export class RunQueue {
  readonly limit: number;
  #running = 0;
  readonly #waiting: { grant: () => void }[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`concurrency limit must be a positive integer, got ${limit}`);
    this.limit = limit;
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `fn` once a slot is free; rejects with SCRIPT_ABORTED if `signal` aborts while queued. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(queuedAbort());
    if (this.#running < this.limit) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#running++;
          resolve();
        },
      };
      const onAbort = (): void => {
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(queuedAbort());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #release(): void {
    this.#running--;
    this.#waiting.shift()?.grant();
  }
}

function queuedAbort(): BerryError {
  return new BerryError('SCRIPT_ABORTED', 'The run was cancelled while it waited for a free slot; it never started.');
}
