/**
 * How RunService executes its runs: in a pool of worker threads (worker-pool.ts), or, with 0
 * workers, on serve's own thread as `host.run` does anywhere else.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from './worker-pool.js';

/**
 * serve's default: a worker per core but one, which the main thread's HTTP, MCP and host calls
 * need under load (about a quarter of a run's CPU); at least 1, at most 4 (each thread holds a V8
 * heap of its own).
 */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
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
