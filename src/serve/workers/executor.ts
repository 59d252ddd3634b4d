/**
 * How RunService executes its runs: in a pool of worker processes (worker-pool.ts), or, with 0
 * workers, on serve's own thread as `host.run` does anywhere else.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from './worker-pool.js';

/**
 * serve's default from the core count: a worker per core but one (serve's own), at least 2 and at
 * most 4 (each is a process with a V8 heap of its own); one on one core, where it only adds its
 * crossings, but keeps what a script does to memory out of serve's process. On 2 cores one worker
 * binds: it does ≈ 2 ms of each run, and the cores stay idle; two fill them (docs/performance.md).
 */
export function defaultWorkers(cores = availableParallelism()): number {
  return cores <= 1 ? 1 : Math.min(4, Math.max(2, cores - 1));
}

/** Runs each process that runs scripts (a worker, or serve's own with none) has executing by default. */
const RUNS_PER_WORKER = 4;

/**
 * serve's default `--max-concurrency` for `workers` workers: 4 per process that runs scripts. A run
 * mostly waits for its MCP calls; with fewer in flight a worker idles while all of its
 * runs wait (2 workers at 4 runs: the cores 94 % busy, 290 runs/s; at 8: 96 %, 313 runs/s).
 */
export function defaultConcurrency(workers: number): number {
  return RUNS_PER_WORKER * Math.max(1, workers);
}

/** `runOptions` goes into each host.run; `workers` is the pool's size (0: none); `close` ends the workers. */
export interface RunExecutor {
  readonly runOptions: { readonly runScript?: WorkerPool['run'] };
  readonly workers: number;
  close(): Promise<void>;
}

/** `workers` processes (defaultWorkers() when undefined), or none for 0: each run then stays on this thread. */
export function runExecutor(workers: number | undefined, onWarning: (message: string) => void): RunExecutor {
  const size = workers ?? defaultWorkers();
  if (!Number.isInteger(size) || size < 0) throw new TypeError(`workers must be a whole number, got ${size}`);
  if (size === 0) return { runOptions: {}, workers: 0, close: async () => {} };
  const pool = new WorkerPool({ size, onWarning });
  return { runOptions: { runScript: pool.run }, workers: size, close: () => pool.close() };
}
