/**
 * serve's run workers: a fixed number of worker threads that run scripts, so that isolate creation,
 * each script's own work and disposal happen off the main thread, which keeps HTTP, the MCP
 * sessions, the queue and the host. `run(code, options)` takes runScript's arguments: the host
 * builds the function table as for any run and passes this in its place (`host.run`'s
 * `runScript`); each `tools.*` call the worker sends back is made here by that table, so every
 * run shares the one host's connections, approvals and elicitation routing as before.
 *
 * A worker that dies (a native crash, running out of memory) fails only its runs, with
 * SERVE_WORKER_FAILED, and is replaced when the next run needs a worker.
 */
import { Worker } from 'node:worker_threads';
import { BerryError } from '../common/errors.js';
import { beyondLimit, DEFAULT_MEMORY_LIMIT_MB, shapeHostError, type ErrorShape, type HostProgress, type RunRecord, type RunScriptOptions } from '../runtime/index.js';
import { limitsOf, rebuild, type FromWorker, type ToWorker } from './worker-protocol.js';

export interface WorkerPoolOptions {
  /** Worker threads. */
  readonly size: number;
  /** The worker's module (a test may wrap the real one). @default run-worker.js beside this file */
  readonly workerUrl?: URL;
  /** Where a worker's death is reported besides the runs it fails. */
  readonly onWarning?: (message: string) => void;
}

/** A run in a worker, as the main thread tracks it. */
interface PoolRun {
  readonly options: RunScriptOptions;
  readonly worker: PoolWorker;
  readonly started: number;
  /** Host calls in flight, each with its own abort. */
  readonly calls: Map<number, AbortController>;
  /** Host calls made so far. */
  made: number;
  readonly resolve: (record: RunRecord) => void;
  readonly reject: (error: Error) => void;
  readonly unlisten: () => void;
  /** Settles with the run (either way). */
  readonly settled: Promise<unknown>;
}

interface PoolWorker {
  readonly thread: Worker;
  /** thread.threadId, kept: it reads -1 once the thread has exited. */
  readonly threadId: number;
  readonly runs: Set<number>;
  dead: boolean;
}

const DEFAULT_WORKER = new URL('./run-worker.js', import.meta.url);

export class WorkerPool {
  readonly size: number;
  readonly #url: URL;
  readonly #warn: (message: string) => void;
  /** One slot per worker; a dead worker's slot is empty until the next run needs it. */
  readonly #workers: (PoolWorker | undefined)[] = [];
  readonly #runs = new Map<number, PoolRun>();
  #nextId = 0;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new TypeError(`worker pool size must be a positive integer, got ${options.size}`);
    this.size = options.size;
    this.#url = options.workerUrl ?? DEFAULT_WORKER;
    this.#warn = options.onWarning ?? (() => {});
    for (let i = 0; i < this.size; i++) this.#workers.push(this.#spawn());
  }

  /** Each worker's thread id and how many runs it has now (for tests and diagnostics). */
  workers(): { readonly threadId: number; readonly runs: number }[] {
    return this.#workers.filter((w) => w !== undefined).map((w) => ({ threadId: w.threadId, runs: w.runs.size }));
  }

  /** runScript, in the least busy worker. */
  readonly run = (code: string, options: RunScriptOptions): Promise<RunRecord> => {
    if (this.#closed) return Promise.reject(new BerryError('SCRIPT_SETUP_FAILED', 'serve is shutting down: its run workers are closed.'));
    const worker = this.#pick();
    const id = ++this.#nextId;
    const signal = options.signal;
    const onAbort = (): void => this.#post(worker, { type: 'abort', id });
    let resolve!: (record: RunRecord) => void;
    let reject!: (error: Error) => void;
    const result = new Promise<RunRecord>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#runs.set(id, {
      options,
      worker,
      started: performance.now(),
      calls: new Map(),
      made: 0,
      resolve,
      reject,
      unlisten: () => signal?.removeEventListener('abort', onAbort),
      settled: result.catch(() => {}),
    });
    // A worker keeps the process alive only while it has runs.
    if (worker.runs.size === 0) worker.thread.ref();
    worker.runs.add(id);
    this.#post(worker, {
      type: 'run',
      id,
      code,
      names: Object.keys(options.functions),
      limits: limitsOf(options),
      hooks: { progress: options.onProgress !== undefined, output: options.onOutput !== undefined, callEnd: options.onCallEnd !== undefined },
    });
    if (signal?.aborted) onAbort();
    return result;
  };

  /**
   * Ends every worker, after at most `graceMs` for the runs still in them (aborted ones end in
   * milliseconds); those still running then fail with SERVE_WORKER_FAILED. Idempotent.
   */
  async close(graceMs = 2_000): Promise<void> {
    this.#closed = true;
    if (this.#runs.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const settled = Promise.allSettled([...this.#runs.values()].map((r) => r.settled));
      await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    const workers = this.#workers.splice(0).filter((w) => w !== undefined);
    await Promise.all(workers.map(async (w) => {
      this.#bury(w, 'serve is shutting down');
      await w.thread.terminate();
    }));
  }

  /** The worker with the fewest runs; on a tie the first, so a lone client keeps one warm thread. */
  #pick(): PoolWorker {
    // Replaced here, not as the old one dies: a worker that cannot start fails runs, it does not spin.
    for (let i = 0; i < this.#workers.length; i++) this.#workers[i] ??= this.#spawn();
    let best = this.#workers[0]!;
    for (const w of this.#workers) if (w!.runs.size < best.runs.size) best = w!;
    return best;
  }

  #spawn(): PoolWorker {
    // The worker gets no environment but what Node itself reads: it never needs a secret.
    const nodeOptions = process.env['NODE_OPTIONS'];
    const thread = new Worker(this.#url, { env: nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions } });
    const worker: PoolWorker = { thread, threadId: thread.threadId, runs: new Set(), dead: false };
    thread.on('message', (message: FromWorker) => this.#onMessage(worker, message));
    thread.on('error', (error) => this.#replace(worker, `failed: ${error.message}`));
    thread.on('exit', (code) => this.#replace(worker, `exited with code ${code}`));
    // An idle pool must not keep the process alive: the HTTP server or stdin does that.
    thread.unref();
    return worker;
  }

  #replace(worker: PoolWorker, why: string): void {
    if (worker.dead) return;
    const failed = worker.runs.size;
    this.#bury(worker, `the run worker ${why}`);
    const at = this.#workers.indexOf(worker);
    if (at < 0 || this.#closed) return;
    this.#warn(`run worker ${worker.threadId} ${why}; ${failed} run${failed === 1 ? ' was' : 's were'} failed, a new worker takes its place at the next run`);
    this.#workers[at] = undefined;
  }

  /** Fails the worker's runs and aborts their host calls; the worker is not used again. */
  #bury(worker: PoolWorker, why: string): void {
    worker.dead = true;
    for (const id of worker.runs) {
      const run = this.#runs.get(id);
      if (!run) continue;
      for (const call of run.calls.values()) call.abort(RUN_ENDED());
      this.#finish(id, {
        ok: false,
        outputs: [],
        logs: [],
        error: {
          name: 'Error',
          code: 'SERVE_WORKER_FAILED',
          message: `The thread running this script stopped (${why}): the run ended without a result; its calls were cancelled. Other runs are not affected: run it again.`,
        },
        durationMs: Math.round((performance.now() - run.started) * 1000) / 1000,
        calls: run.made,
      });
    }
  }

  #finish(id: number, record: RunRecord | Error): void {
    const run = this.#runs.get(id);
    if (!run) return;
    this.#runs.delete(id);
    run.worker.runs.delete(id);
    if (run.worker.runs.size === 0) run.worker.thread.unref();
    run.unlisten();
    if (record instanceof Error) run.reject(record);
    else run.resolve(record);
  }

  #onMessage(worker: PoolWorker, message: FromWorker): void {
    const run = this.#runs.get(message.id);
    if (!run || run.worker !== worker) return;
    switch (message.type) {
      case 'call':
        void this.#call(run, message.id, message.call, message.fn, message.args);
        return;
      case 'call-abort':
        run.calls.get(message.call)?.abort(rebuild(message.reason));
        return;
      case 'events':
        for (const event of message.events) {
          try {
            if (event.type === 'progress') run.options.onProgress?.(event.progress);
            else if (event.type === 'output') run.options.onOutput?.(event.entry);
            else run.options.onCallEnd?.(event.call);
          } catch {
            // A failing listener must not fail the run, as in process.
          }
        }
        return;
      case 'done':
        this.#finish(message.id, message.record);
        return;
      case 'failed':
        this.#finish(message.id, rebuild(message.error));
    }
  }

  /** Makes one of the run's host calls here and sends the answer (or the error's crossing shape). */
  async #call(run: PoolRun, id: number, call: number, fn: string, args: unknown): Promise<void> {
    const controller = new AbortController();
    run.calls.set(call, controller);
    run.made++;
    const onProgress = (progress: HostProgress): void => {
      this.#post(run.worker, { type: 'call-progress', id, call, progress });
    };
    let answer: ToWorker;
    try {
      const host = run.options.functions[fn];
      if (!host) throw new TypeError(`tools.${fn} is not a function`);
      answer = { type: 'answer', id, call, ...this.#bounded(run, fn, await host(args, { signal: controller.signal, onProgress })) };
    } catch (error) {
      answer = { type: 'answer', id, call, error: shapeHostError(error) };
    } finally {
      run.calls.delete(call);
    }
    this.#post(run.worker, answer);
  }

  /**
   * An answer as JSON text (what the runtime keeps of a value anyway), refused here when even an
   * empty isolate of the run's memory limit could not take it: bounded before it crosses into the
   * worker, where the run's own gate then measures its isolate as in process.
   */
  #bounded(run: PoolRun, fn: string, value: unknown): { json?: string } | { error: ErrorShape } {
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      return { error: { name: 'TypeError', message: `tools.${fn}() returned a value that cannot be converted to JSON (${(error as Error).message})` } };
    }
    if (json === undefined) return {};
    const refused = beyondLimit(fn, json, run.options.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB);
    return refused ? { error: refused } : { json };
  }

  #post(worker: PoolWorker, message: ToWorker): void {
    if (!worker.dead) worker.thread.postMessage(message);
  }
}

const RUN_ENDED = (): BerryError => new BerryError('SCRIPT_ABORTED', 'The script run ended before this call finished.');
