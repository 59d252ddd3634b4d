/**
 * One run in a worker process, as serve tracks it (worker-pool.ts): makes the run's host calls
 * here when the worker asks, forwards its events to the run's hooks, and settles with the worker's
 * record, or with SERVE_WORKER_FAILED when the worker goes without one.
 */
import { BerryError } from '../../common/errors.js';
import {
  beyondLimit,
  DEFAULT_MEMORY_LIMIT_MB,
  shapeHostError,
  StateValues,
  type ErrorShape,
  type HostProgress,
  type RunRecord,
  type RunScriptOptions,
  type StateChanges,
} from '../../runtime/index.js';
import { rebuild, type FromWorker, type ToWorker } from './worker-protocol.js';

export class PoolRun {
  readonly id: number;
  /** The worker it runs in (opaque here). */
  readonly worker: object;
  readonly result: Promise<RunRecord>;
  /** Settles with the run (either way). */
  readonly settled: Promise<unknown>;
  readonly #options: RunScriptOptions;
  readonly #post: (message: ToWorker) => void;
  readonly #onEnd: (record: RunRecord | undefined) => void;
  readonly #started = performance.now();
  /** Host calls in flight, each with its own abort. */
  readonly #calls = new Map<number, AbortController>();
  /** Host calls made so far. */
  #made = 0;
  #resolve!: (record: RunRecord) => void;
  #reject!: (error: Error) => void;
  #done = false;
  #unlisten = (): void => {};
  #watchdog: NodeJS.Timeout | undefined;
  #onStuck = (): void => {};
  #graceMs = 0;

  /** `onEnd` is called once, as the run settles (before its promise does), with its record when it has one. */
  constructor(id: number, options: RunScriptOptions, worker: object, post: (message: ToWorker) => void, onEnd: (record: RunRecord | undefined) => void) {
    this.id = id;
    this.worker = worker;
    this.#options = options;
    this.#post = post;
    this.#onEnd = onEnd;
    this.result = new Promise<RunRecord>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.settled = this.result.catch(() => {});
  }

  /** Calls `onStuck` when the worker has not ended the run `graceMs` after its time limit. */
  watch(timeoutMs: number, graceMs: number, onStuck: () => void): void {
    this.#onStuck = onStuck;
    this.#graceMs = graceMs;
    this.#arm(timeoutMs + graceMs);
  }

  /** Forwards the caller's abort to the worker, which then has `graceMs` to end the run. */
  listen(): void {
    const signal = this.#options.signal;
    if (signal === undefined) return;
    const onAbort = (): void => {
      this.#post({ type: 'abort', id: this.id });
      this.#arm(this.#graceMs);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    this.#unlisten = () => signal.removeEventListener('abort', onAbort);
  }

  onMessage(message: Exclude<FromWorker, { type: 'health' }>): void {
    switch (message.type) {
      case 'call':
        void this.#call(message.call, message.fn, message.args);
        return;
      case 'call-abort':
        this.#calls.get(message.call)?.abort(rebuild(message.reason));
        return;
      case 'events':
        for (const event of message.events) {
          try {
            if (event.type === 'progress') this.#options.onProgress?.(event.progress);
            else if (event.type === 'output') this.#options.onOutput?.(event.entry);
            else this.#options.onCallEnd?.(event.call);
          } catch {
            // A failing listener must not fail the run, as in process.
          }
        }
        return;
      case 'done':
        this.#finish(this.#withChanges(message.record, message.changes));
        return;
      case 'failed':
        this.#finish(rebuild(message.error));
    }
  }

  /** The worker went without a record: the run fails with SERVE_WORKER_FAILED, its host calls are aborted. */
  fail(why: string): void {
    if (this.#done) return;
    for (const call of this.#calls.values()) call.abort(RUN_ENDED());
    this.#finish({
      ok: false,
      outputs: [],
      logs: [],
      error: {
        name: 'Error',
        code: 'SERVE_WORKER_FAILED',
        message: `The process running this script stopped (${why}): the run ended without a result; its calls were cancelled. Other runs are not affected: run it again.`,
      },
      durationMs: Math.round((performance.now() - this.#started) * 1000) / 1000,
      calls: this.#made,
    });
  }

  /**
   * The worker's record after its state changes are applied here, as the run ends (whether it
   * failed or not; a run whose worker died sends none). A change another run of the same state made
   * impossible meanwhile (a bound) is said in the record's logs.
   */
  #withChanges(record: RunRecord, changes: StateChanges | undefined): RunRecord {
    const state = this.#options.state;
    if (changes === undefined || changes.length === 0 || !(state instanceof StateValues)) return record;
    const skipped = state.apply(changes);
    if (skipped.length === 0) return record;
    const text = `store() of ${skipped.length === 1 ? 'key' : 'keys'} ${skipped.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')} was not kept: another run of this state filled it meanwhile [SCRIPT_STATE_LIMIT]`;
    return { ...record, logs: [...record.logs, { level: 'warn', text }] };
  }

  #arm(ms: number): void {
    clearTimeout(this.#watchdog);
    this.#watchdog = setTimeout(() => this.#onStuck(), ms);
    // The run itself keeps serve alive (its client waits), not its watchdog.
    this.#watchdog.unref();
  }

  #finish(record: RunRecord | Error): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#watchdog);
    this.#unlisten();
    this.#onEnd(record instanceof Error ? undefined : record);
    if (record instanceof Error) this.#reject(record);
    else this.#resolve(record);
  }

  /** Makes one of the run's host calls here and sends the answer (or the error's crossing shape). */
  async #call(call: number, fn: string, args: unknown): Promise<void> {
    const controller = new AbortController();
    this.#calls.set(call, controller);
    this.#made++;
    const onProgress = (progress: HostProgress): void => {
      if (!this.#done) this.#post({ type: 'call-progress', id: this.id, call, progress });
    };
    let answer: ToWorker;
    try {
      const host = this.#options.functions[fn];
      if (!host) throw new TypeError(`tools.${fn} is not a function`);
      answer = { type: 'answer', id: this.id, call, ...this.#bounded(fn, await host(args, { signal: controller.signal, onProgress })) };
    } catch (error) {
      answer = { type: 'answer', id: this.id, call, error: shapeHostError(error) };
    } finally {
      this.#calls.delete(call);
    }
    if (!this.#done) this.#post(answer);
  }

  /**
   * An answer as JSON text (what the runtime keeps of a value anyway), refused here when even an
   * empty isolate of the run's memory limit could not take it: bounded before it crosses into the
   * worker, where the run's own gate then measures its isolate as in process.
   */
  #bounded(fn: string, value: unknown): { json?: string } | { error: ErrorShape } {
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      return { error: { name: 'TypeError', message: `tools.${fn}() returned a value that cannot be converted to JSON (${(error as Error).message})` } };
    }
    if (json === undefined) return {};
    const refused = beyondLimit(fn, json, this.#options.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB);
    return refused ? { error: refused } : { json };
  }
}

export const RUN_ENDED = (): BerryError => new BerryError('SCRIPT_ABORTED', 'The script run ended before this call finished.');
