/**
 * How RunService executes its runs: in a pool of worker threads (worker-pool.ts), or, with 0
 * workers, on serve's own thread as `host.run` does anywhere else.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from './worker-pool.js';

/**
 * serve's default from the core count: none on 1 or 2 cores, where the one event loop carries as
 * many runs as the cores do and the crossings only add CPU (≈ 0.5 ms a run, docs/performance.md);
 * else a worker per core but one (the main thread's), at most 4 (each holds a V8 heap of its own).
 */
export function defaultWorkers(cores = availableParallelism()): number {
  return cores <= 2 ? 0 : Math.min(4, cores - 1);
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
