import { BerryError } from '../common/errors.js';

interface Waiter {
  readonly grant: () => void;
}

/** One client's runs: those executing and those waiting, in order. */
interface ClientRuns {
  running: number;
  readonly waiting: Waiter[];
}

/**
 * A gate that lets at most `limit` runs execute at once. Each client (a serve session) waits in its
 * own FIFO, bounded to `maxQueued`; a freed slot goes to the clients in turn (round robin), so one
 * client's many runs never hold another's back by more than one run each. A waiter whose signal
 * aborts leaves its queue without ever taking a slot.
 */
export class RunQueue {
  readonly limit: number;
  readonly maxQueued: number;
  #running = 0;
  #queued = 0;
  readonly #clients = new Map<object, ClientRuns>();
  /** Clients with runs waiting, the next one to get a slot first. */
  readonly #turns: object[] = [];

  constructor(limit: number, maxQueued = 8) {
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`concurrency limit must be a positive integer, got ${limit}`);
    if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new TypeError(`queued runs per client must be a whole number, got ${maxQueued}`);
    this.limit = limit;
    this.maxQueued = maxQueued;
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queued;
  }

  /** True while `client` has a run executing or waiting. */
  busy(client: object): boolean {
    return this.#clients.has(client);
  }

  /**
   * Runs `fn` for `client` once a slot is free. Rejects SERVE_QUEUE_FULL at once when the client
   * already has `maxQueued` runs waiting, SCRIPT_ABORTED if `signal` aborts while queued.
   */
  async run<T>(client: object, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(client, signal);
    try {
      return await fn();
    } finally {
      this.#release(client);
    }
  }

  #acquire(client: object, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(queuedAbort());
    const runs = this.#clients.get(client) ?? { running: 0, waiting: [] };
    if (this.#running < this.limit) {
      this.#clients.set(client, runs);
      runs.running++;
      this.#running++;
      return Promise.resolve();
    }
    if (runs.waiting.length >= this.maxQueued) return Promise.reject(this.#full());
    this.#clients.set(client, runs);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          runs.running++;
          this.#running++;
          resolve();
        },
      };
      const onAbort = (): void => {
        runs.waiting.splice(runs.waiting.indexOf(waiter), 1);
        this.#queued--;
        if (runs.waiting.length === 0) this.#turns.splice(this.#turns.indexOf(client), 1);
        this.#forgetIfIdle(client, runs);
        reject(queuedAbort());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (runs.waiting.length === 0) this.#turns.push(client);
      runs.waiting.push(waiter);
      this.#queued++;
    });
  }

  #release(client: object): void {
    const runs = this.#clients.get(client);
    if (runs) {
      runs.running--;
      this.#forgetIfIdle(client, runs);
    }
    this.#running--;
    const next = this.#turns.shift();
    if (next === undefined) return;
    const nextRuns = this.#clients.get(next)!;
    const waiter = nextRuns.waiting.shift()!;
    this.#queued--;
    // Still waiting: its turn comes again after every other waiting client's.
    if (nextRuns.waiting.length > 0) this.#turns.push(next);
    waiter.grant();
  }

  #forgetIfIdle(client: object, runs: ClientRuns): void {
    if (runs.running === 0 && runs.waiting.length === 0) this.#clients.delete(client);
  }

  #full(): BerryError {
    return new BerryError(
      'SERVE_QUEUE_FULL',
      `This client already has ${this.maxQueued} run${this.maxQueued === 1 ? '' : 's'} waiting for a free slot ` +
        `(${this.limit} run${this.limit === 1 ? '' : 's'} execute at once): this run was refused, nothing ran. ` +
        'Wait for a run to finish, or combine the work into fewer runs (one script can call many tools in parallel).',
    );
  }
}

function queuedAbort(): BerryError {
  return new BerryError('SCRIPT_ABORTED', 'The run was cancelled while it waited for a free slot; it never started.');
}
