import { BerryError } from '../common/errors.js';

/**
 * Who stands behind requests that do not trust each other: a bearer token of serve --http
 * (`--token-file` names one per line), or the one client of stdio. Holders are the unit of
 * fairness: a holder's clients share its cap however many clients it opens.
 */
export interface RunHolder {
  readonly name: string;
  /** Runs its clients may execute at once, together. */
  readonly maxRunning: number;
}

/**
 * One client of a holder: the stdio connection, a 2025-11-25 session, or every 2026-07-28
 * request of one holder (nothing in such a request tells its clients apart soundly). Its runs
 * wait in their own FIFO.
 */
export interface RunClient {
  readonly holder: RunHolder;
  /** Runs it may execute at once. */
  readonly maxRunning: number;
}

/** A client that is alone with the server (stdio, an embedder's connection): it may use every slot. */
export function loneClient(limit: number, name = 'stdio'): RunClient {
  return { holder: { name, maxRunning: limit }, maxRunning: limit };
}

interface Waiter {
  readonly grant: () => void;
}

interface ClientRuns {
  running: number;
  readonly waiting: Waiter[];
}

interface HolderRuns {
  running: number;
  readonly clients: Map<RunClient, ClientRuns>;
  /** Its clients with runs waiting, the next one to get a slot first. */
  readonly turns: RunClient[];
}

/**
 * A gate that lets at most `limit` runs execute at once, each client at most its `maxRunning`
 * and each holder's clients together at most the holder's. Each client waits in its own FIFO,
 * bounded to `maxQueued`. A freed slot goes to the holders in turn, and within a holder to its
 * clients in turn, skipping those at their cap: a run waits behind at most one run of each other
 * holder, however many clients and runs that holder has. A waiter whose signal aborts leaves its
 * queue without ever taking a slot.
 *
 * With each holder's cap below `limit` (serve --http keeps a quarter out of any one's reach), a
 * holder alone never makes another wait: whatever its runs do and however long they take, it
 * leaves `limit - cap` slots that only others may take, and another's run waits only for runs of
 * two or more others (or its own) to end.
 */
export class RunQueue {
  readonly limit: number;
  readonly maxQueued: number;
  #running = 0;
  #queued = 0;
  readonly #holders = new Map<RunHolder, HolderRuns>();
  /** Holders with runs waiting, the next one to get a slot first. */
  readonly #turns: RunHolder[] = [];

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
  busy(client: RunClient): boolean {
    return this.#holders.get(client.holder)?.clients.has(client) ?? false;
  }

  /** Runs `holder`'s clients execute now. */
  runningOf(holder: RunHolder): number {
    return this.#holders.get(holder)?.running ?? 0;
  }

  /**
   * Runs `fn` for `client` once a slot is free that its caps allow. Rejects SERVE_QUEUE_FULL at
   * once when the client already has `maxQueued` runs waiting, SCRIPT_ABORTED if `signal` aborts
   * while queued.
   */
  async run<T>(client: RunClient, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(client, signal);
    try {
      return await fn();
    } finally {
      this.#release(client);
    }
  }

  #acquire(client: RunClient, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(queuedAbort());
    const holder: HolderRuns = this.#holders.get(client.holder) ?? { running: 0, clients: new Map(), turns: [] };
    const runs: ClientRuns = holder.clients.get(client) ?? { running: 0, waiting: [] };
    // No waiter may start now (each release hands out every slot it can), so this run passes none.
    if (runs.waiting.length === 0 && this.#running < this.limit && this.#allowed(client, holder, runs)) {
      this.#track(client, holder, runs);
      this.#start(holder, runs);
      return Promise.resolve();
    }
    if (runs.waiting.length >= this.maxQueued) return Promise.reject(this.#full(client));
    this.#track(client, holder, runs);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#start(holder, runs);
          resolve();
        },
      };
      const onAbort = (): void => {
        runs.waiting.splice(runs.waiting.indexOf(waiter), 1);
        this.#queued--;
        if (runs.waiting.length === 0) remove(holder.turns, client);
        if (holder.turns.length === 0) remove(this.#turns, client.holder);
        this.#forgetIfIdle(client, holder, runs);
        reject(queuedAbort());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (runs.waiting.length === 0) {
        holder.turns.push(client);
        // A holder takes turns exactly while one of its clients does.
        if (holder.turns.length === 1) this.#turns.push(client.holder);
      }
      runs.waiting.push(waiter);
      this.#queued++;
    });
  }

  #allowed(client: RunClient, holder: HolderRuns, runs: ClientRuns): boolean {
    return runs.running < client.maxRunning && holder.running < client.holder.maxRunning;
  }

  #track(client: RunClient, holder: HolderRuns, runs: ClientRuns): void {
    this.#holders.set(client.holder, holder);
    holder.clients.set(client, runs);
  }

  #start(holder: HolderRuns, runs: ClientRuns): void {
    runs.running++;
    holder.running++;
    this.#running++;
  }

  #release(client: RunClient): void {
    const holder = this.#holders.get(client.holder)!;
    const runs = holder.clients.get(client)!;
    runs.running--;
    holder.running--;
    this.#running--;
    this.#forgetIfIdle(client, holder, runs);
    for (let waiter = this.#next(); waiter !== undefined; waiter = this.#running < this.limit ? this.#next() : undefined) waiter.grant();
  }

  /** The first waiter, in turn, whose client and holder are below their caps; it leaves the queue. */
  #next(): Waiter | undefined {
    for (const [h, holderKey] of this.#turns.entries()) {
      const holder = this.#holders.get(holderKey)!;
      if (holder.running >= holderKey.maxRunning) continue;
      for (const [c, client] of holder.turns.entries()) {
        const runs = holder.clients.get(client)!;
        if (runs.running >= client.maxRunning) continue;
        const waiter = runs.waiting.shift()!;
        this.#queued--;
        // Served: its turn comes again after every other waiting client's (and holder's).
        holder.turns.splice(c, 1);
        if (runs.waiting.length > 0) holder.turns.push(client);
        this.#turns.splice(h, 1);
        if (holder.turns.length > 0) this.#turns.push(holderKey);
        return waiter;
      }
    }
    return undefined;
  }

  #forgetIfIdle(client: RunClient, holder: HolderRuns, runs: ClientRuns): void {
    if (runs.running === 0 && runs.waiting.length === 0) holder.clients.delete(client);
    if (holder.clients.size === 0) this.#holders.delete(client.holder);
  }

  #full(client: RunClient): BerryError {
    const plural = (n: number): string => `${n} run${n === 1 ? '' : 's'}`;
    return new BerryError(
      'SERVE_QUEUE_FULL',
      `This client already has ${plural(this.maxQueued)} waiting for a free slot ` +
        `(it may execute ${plural(Math.min(client.maxRunning, client.holder.maxRunning, this.limit))} at once, ` +
        `the server ${this.limit}): this run was refused, nothing ran. ` +
        'Wait for a run to finish, or combine the work into fewer runs (one script can call many tools in parallel).',
    );
  }
}

function remove<T>(list: T[], item: T): void {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
}

function queuedAbort(): BerryError {
  return new BerryError('SCRIPT_ABORTED', 'The run was cancelled while it waited for a free slot; it never started.');
}
