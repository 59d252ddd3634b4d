/**
 * How RunService executes its runs: in a pool of worker threads (worker-pool.ts), or, with 0
 * workers, on serve's own thread as `host.run` does anywhere else.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from './worker-pool.js';

/**
 * serve's default from the core count: none on one core, where a worker only adds its crossings
 * (≈ 0.5 ms a run); else a worker per core but one (the main thread's), at least 2 and at most 4
 * (each holds a V8 heap of its own). On 2 cores one worker is a thread of its own that binds: it
 * does ≈ 2 ms of each run, and the cores stay 17 % idle; two fill them (docs/performance.md).
 */
export function defaultWorkers(cores = availableParallelism()): number {
  return cores <= 1 ? 0 : Math.min(4, Math.max(2, cores - 1));
}

/** Runs each thread that runs scripts (a worker, or serve's own with none) has executing by default. */
const RUNS_PER_THREAD = 4;

/**
 * serve's default `--max-concurrency` for `workers` workers: 4 per thread that runs scripts. A run
 * mostly waits for its MCP calls; with fewer in flight a worker's thread idles while all of its
 * runs wait (2 workers at 4 runs: the cores 94 % busy, 290 runs/s; at 8: 96 %, 313 runs/s).
 */
export function defaultConcurrency(workers: number): number {
  return RUNS_PER_THREAD * Math.max(1, workers);
}

/** `runOptions` goes into each host.run; `workers` is the pool's size (0: none); `close` ends the workers. */
export interface RunExecutor {
  readonly runOptions: { readonly runScript?: WorkerPool['run'] };
  readonly workers: number;
  close(): Promise<void>;
}

/** `workers` threads (defaultWorkers() when undefined), or none for 0: each run then stays on this thread. */
export function runExecutor(workers: number | undefined, onWarning: (message: string) => void): RunExecutor {
  const size = workers ?? defaultWorkers();
  if (!Number.isInteger(size) || size < 0) throw new TypeError(`workers must be a whole number, got ${size}`);
  if (size === 0) return { runOptions: {}, workers: 0, close: async () => {} };
  const pool = new WorkerPool({ size, onWarning });
  return { runOptions: { runScript: pool.run }, workers: size, close: () => pool.close() };
}
