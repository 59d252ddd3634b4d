/**
 * serve's run workers: a fixed number of child processes that run scripts, so that isolate
 * creation, each script's own work and disposal happen outside serve's process, which keeps HTTP,
 * the MCP sessions, the queue and the host. `run(code, options)` takes runScript's arguments: the
 * host builds the function table as for any run and passes this in its place (`host.run`'s
 * `runScript`); each `tools.*` call the worker sends back is made here by that table, so every run
 * shares the one host's connections, approvals and elicitation routing.
 *
 * A worker is a place that can be thrown away. One whose isolate was parked by a catastrophic
 * out-of-memory error is killed at once (its memory would never come back), failing the runs still
 * in it with SERVE_WORKER_FAILED. One where the runtime stopped a run (its memory or time limit, an
 * abort: V8 may have lent the isolate memory past its limit, or a builtin that never checks for
 * termination may still be working), or whose resident memory stays past its ceiling after a run
 * (worker-process.ts), takes no new run and is killed when its last run ends. Either way a new worker takes its slot at once. One that dies, or does not end a run within the run's time limit
 * plus hangGraceMs, fails only its runs and is replaced when the next run needs a worker.
 */
import type { ChildProcess } from 'node:child_process';
import { BerryError } from '../../common/errors.js';
import { BUILT_SOURCES } from '../../common/package-root.js';
import { StateValues, type RunRecord, type RunScriptOptions } from '../../runtime/index.js';
import { PoolRun } from './pool-run.js';
import { limitsOf, type FromWorker, type ToWorker, type WorkerHealth } from './worker-protocol.js';
import { retirement, spawnWorker, stderrTail } from './worker-process.js';

export interface WorkerPoolOptions {
  /** Worker processes. */
  readonly size: number;
  /** The worker's module (a test may wrap the real one). @default run-worker.js beside this file */
  readonly workerUrl?: URL;
  /** Where a worker's death or retirement is reported besides the runs it fails. */
  readonly onWarning?: (message: string) => void;
  /** How long past a run's time limit (or its abort) its worker may take to answer before it is taken for stuck. @default HANG_GRACE_MS */
  readonly hangGraceMs?: number;
}

/** A worker process as the pool tracks it. */
interface PoolWorker {
  /** undefined when the process could not be started. */
  readonly child: ChildProcess | undefined;
  /** child.pid, kept (undefined when the process could not be started). */
  readonly pid: number | undefined;
  readonly runs: Set<number>;
  /** The last line it wrote to stderr. */
  readonly lastWords: () => string;
  /** Its resident memory when it said it was ready (its first health report). */
  startRss: number | undefined;
  /** Takes no new run; killed when its last run ends. */
  retiring: boolean;
  dead: boolean;
}

/** The default of WorkerPoolOptions.hangGraceMs: a run's record comes right at its time limit, even from a busy worker. */
export const HANG_GRACE_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 300_000;
/** The ends of a run that the runtime stopped itself: its isolate may still be busy in a builtin that never checks for termination. */
const STOPPED: ReadonlyMap<string, string> = new Map([
  ['SCRIPT_MEMORY_LIMIT', 'reached its memory limit'],
  ['SCRIPT_TIMEOUT', 'reached its time limit'],
  ['SCRIPT_ABORTED', 'was aborted'],
]);
const DEFAULT_WORKER = new URL('serve/workers/run-worker.js', BUILT_SOURCES);

export class WorkerPool {
  readonly size: number;
  readonly #url: URL;
  readonly #warn: (message: string) => void;
  readonly #graceMs: number;
  /** One slot per worker; a dead worker stays in its slot until the next run needs it. */
  readonly #workers: PoolWorker[] = [];
  /** Retired for memory, still finishing their runs. */
  readonly #retiring = new Set<PoolWorker>();
  readonly #runs = new Map<number, PoolRun>();
  #nextId = 0;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new TypeError(`worker pool size must be a positive integer, got ${options.size}`);
    this.size = options.size;
    this.#url = options.workerUrl ?? DEFAULT_WORKER;
    this.#warn = options.onWarning ?? (() => {});
    this.#graceMs = options.hangGraceMs ?? HANG_GRACE_MS;
    for (let i = 0; i < this.size; i++) this.#workers.push(this.#spawn());
  }

  /** Each worker's process id and how many runs it has now, those retiring included (for tests and diagnostics). */
  workers(): { readonly pid: number | undefined; readonly runs: number; readonly retiring: boolean }[] {
    return [...this.#workers.filter((w) => !w.dead), ...this.#retiring].map((w) => ({ pid: w.pid, runs: w.runs.size, retiring: w.retiring }));
  }

  /** runScript, in the least busy worker. */
  readonly run = (code: string, options: RunScriptOptions): Promise<RunRecord> => {
    if (this.#closed) return Promise.reject(new BerryError('SCRIPT_SETUP_FAILED', 'serve is shutting down: its run workers are closed.'));
    const state = options.state;
    if (state !== undefined && !(state instanceof StateValues)) return Promise.reject(new TypeError('options.state must be a state made by createRunState()'));
    const worker = this.#pick();
    const id = ++this.#nextId;
    const run = new PoolRun(
      id,
      options,
      worker,
      (message) => this.#post(worker, message),
      (record) => this.#forget(id, record),
    );
    this.#runs.set(id, run);
    // A worker keeps the process alive only while it has runs.
    if (worker.runs.size === 0) setRef(worker.child, true);
    worker.runs.add(id);
    run.watch(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, this.#graceMs, () =>
      this.#kill(worker, `did not end a run within its time limit + ${this.#graceMs / 1000} s`),
    );
    this.#post(worker, {
      type: 'run',
      id,
      code,
      names: Object.keys(options.functions),
      limits: limitsOf(options),
      hooks: { progress: options.onProgress !== undefined, output: options.onOutput !== undefined, callEnd: options.onCallEnd !== undefined },
      ...(state === undefined ? {} : { state: state.snapshot() }),
    });
    run.listen();
    if (worker.dead) run.fail('the run worker could not be started');
    return run.result;
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
    const workers = [...this.#workers.splice(0), ...this.#retiring];
    this.#retiring.clear();
    await Promise.all(workers.map((w) => this.#end(w, 'serve is shutting down')));
  }

  /** The worker with the fewest runs; on a tie the first, so a lone client keeps one warm process. */
  #pick(): PoolWorker {
    // Replaced here, not as the old one dies: a worker that cannot start fails runs, it does not spin.
    for (let i = 0; i < this.#workers.length; i++) if (this.#workers[i]?.dead !== false) this.#workers[i] = this.#spawn();
    let best = this.#workers[0]!;
    for (const w of this.#workers) if (w.runs.size < best.runs.size) best = w;
    return best;
  }

  #spawn(): PoolWorker {
    let child: ChildProcess;
    try {
      child = spawnWorker(this.#url);
    } catch (error) {
      this.#warn(`could not start a run worker: ${(error as Error).message}`);
      return { child: undefined, pid: undefined, runs: new Set(), lastWords: () => '', startRss: undefined, retiring: false, dead: true };
    }
    const worker: PoolWorker = { child, pid: child.pid, runs: new Set(), lastWords: stderrTail(child), startRss: undefined, retiring: false, dead: false };
    child.on('message', (message: FromWorker) => this.#onMessage(worker, message));
    child.on('error', (error) => this.#lost(worker, `failed: ${error.message}`));
    child.on('exit', (code, signal) => this.#lost(worker, `exited with ${signal ?? `code ${code}`}`));
    // An idle pool must not keep the process alive: the HTTP server or stdin does that.
    setRef(child, false);
    return worker;
  }

  /** A worker that went by itself (or whose channel failed): its runs fail; its slot is refilled at the next run. */
  #lost(worker: PoolWorker, why: string): void {
    if (worker.dead) return;
    const failed = worker.runs.size;
    this.#bury(worker, `the run worker ${why}`);
    worker.child?.kill('SIGKILL');
    this.#retiring.delete(worker);
    if (this.#workers.includes(worker) && !this.#closed) {
      const words = worker.lastWords();
      this.#warn(
        `run worker ${worker.pid} ${why}${words === '' ? '' : ` (its stderr: ${words})`}; ${failed} run${failed === 1 ? ' was' : 's were'} failed, a new worker takes its place at the next run`,
      );
    }
  }

  /** Kills a worker that must go now (parked, stuck): its runs fail, and a new worker takes its slot at once. */
  #kill(worker: PoolWorker, why: string): void {
    if (worker.dead) return;
    const failed = worker.runs.size;
    this.#warn(`run worker ${worker.pid} ${why}: it was killed; ${failed} run${failed === 1 ? ' was' : 's were'} failed, a new worker takes its place`);
    this.#vacate(worker);
    void this.#end(worker, `the run worker was killed: ${why}`);
  }

  /** A worker past its memory ceiling: no new run goes to it, a new one takes its slot, and it ends with its last run. */
  #retire(worker: PoolWorker, why: string): void {
    if (worker.dead || worker.retiring) return;
    this.#warn(`run worker ${worker.pid} is retired: ${why}; it ends with its last run (${worker.runs.size} left), a new worker takes its place`);
    this.#vacate(worker);
    worker.retiring = true;
    if (worker.runs.size === 0) void this.#end(worker, 'retired');
    else this.#retiring.add(worker);
  }

  #vacate(worker: PoolWorker): void {
    const at = this.#workers.indexOf(worker);
    if (at >= 0 && !this.#closed) this.#workers[at] = this.#spawn();
  }

  /** Fails the worker's runs, kills its process (a parked isolate blocks a normal exit) and waits a little for it to go. */
  async #end(worker: PoolWorker, why: string): Promise<void> {
    this.#retiring.delete(worker);
    const alreadyDead = worker.dead;
    this.#bury(worker, why);
    const child = worker.child;
    if (alreadyDead || child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
  }

  /** Fails the worker's runs and aborts their host calls; the worker is not used again. */
  #bury(worker: PoolWorker, why: string): void {
    worker.dead = true;
    for (const id of [...worker.runs]) this.#runs.get(id)?.fail(why);
  }

  #forget(id: number, record: RunRecord | undefined): void {
    const run = this.#runs.get(id);
    if (!run) return;
    this.#runs.delete(id);
    const worker = run.worker as PoolWorker;
    worker.runs.delete(id);
    // V8 may have lent the isolate memory past its limit, or left a builtin working after the run was stopped.
    const stopped = STOPPED.get(record?.error?.code ?? '');
    if (stopped !== undefined && !this.#closed) this.#retire(worker, `a run in it ${stopped}`);
    if (worker.runs.size > 0 || worker.dead) return;
    if (worker.retiring) void this.#end(worker, 'retired');
    else setRef(worker.child, false);
  }

  #onMessage(worker: PoolWorker, message: FromWorker): void {
    if (message.type === 'health') {
      this.#onHealth(worker, message);
      return;
    }
    const run = this.#runs.get(message.id);
    if (run?.worker === worker) run.onMessage(message);
  }

  #onHealth(worker: PoolWorker, health: WorkerHealth): void {
    worker.startRss ??= health.rss;
    const verdict = retirement(health, worker.startRss);
    if (verdict === undefined || this.#closed) return;
    if (verdict.now) this.#kill(worker, verdict.why);
    else this.#retire(worker, verdict.why);
  }

  #post(worker: PoolWorker, message: ToWorker): void {
    if (!worker.dead && worker.child?.connected === true) worker.child.send(message);
  }
}

/** Whether a worker's process and channel keep serve's event loop alive. */
function setRef(child: ChildProcess | undefined, ref: boolean): void {
  if (child === undefined) return;
  if (ref) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}
