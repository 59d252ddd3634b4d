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

/** `runOptions` goes into each host.run; `close` ends the workers. */
export interface RunExecutor {
  readonly runOptions: { readonly runScript?: WorkerPool['run'] };
  close(): Promise<void>;
}

/** `workers` threads (defaultWorkers() when undefined), or none for 0: each run then stays on this thread. */
export function runExecutor(workers: number | undefined, onWarning: (message: string) => void): RunExecutor {
  const size = workers ?? defaultWorkers();
  if (!Number.isInteger(size) || size < 0) throw new TypeError(`workers must be a whole number, got ${size}`);
  if (size === 0) return { runOptions: {}, close: async () => {} };
  const pool = new WorkerPool({ size, onWarning });
  return { runOptions: { runScript: pool.run }, close: () => pool.close() };
}
