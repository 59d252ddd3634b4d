/**
 * The messages between serve and a run worker, a child process (worker-pool.ts, run-worker.ts),
 * over its IPC channel. A worker runs scripts only: each run's isolate lives there, and each
 * `tools.*` call comes back to serve, whose host makes it (one set of MCP connections, approvals
 * and elicitations as for a run in process). Every value is structured-cloned (the channel's
 * 'advanced' serialization); `id` is the run, `call` the host call.
 */
import { BerryError, type BerryErrorCode } from '../../common/errors.js';
import type { ErrorShape, HostProgress, RunEntry, RunProgress, RunRecord, RunScriptOptions, StateChanges, StateSnapshot } from '../../runtime/index.js';

/** runScript's options that are plain data (the functions and hooks stay in serve). */
export interface RunLimits {
  readonly timeoutMs?: number;
  readonly memoryLimitMb?: number;
  readonly outputLimitBytes?: number;
  readonly maxArgumentBytes?: number;
  readonly maxConcurrentCalls?: number;
  readonly filename?: string;
}

/** What the worker forwards: set for each hook the run has in serve. */
export interface RunHooks {
  readonly progress: boolean;
  readonly output: boolean;
  readonly callEnd: boolean;
}

export type ToWorker =
  | {
      readonly type: 'run';
      readonly id: number;
      readonly code: string;
      readonly names: readonly string[];
      readonly limits: RunLimits;
      readonly hooks: RunHooks;
      /** The run's state as it is when the run starts (its bounds hold it: 4 MiB by default). */
      readonly state?: StateSnapshot;
    }
  | { readonly type: 'abort'; readonly id: number }
  | { readonly type: 'answer'; readonly id: number; readonly call: number; readonly json?: string; readonly error?: ErrorShape }
  | { readonly type: 'call-progress'; readonly id: number; readonly call: number; readonly progress: HostProgress };

/** What a run reports as it goes (runScript's onProgress, onOutput, onCallEnd). */
export type RunEvent =
  | { readonly type: 'progress'; readonly progress: RunProgress }
  | { readonly type: 'output'; readonly entry: RunEntry }
  | { readonly type: 'call-end'; readonly call: { readonly fn: string; readonly call: number } };

/** What a worker says of itself: sent once started, after a run (a little later, once its isolate is gone), and at once after a catastrophe. */
export interface WorkerHealth {
  readonly type: 'health';
  /** Resident memory of the process, in bytes. */
  readonly rss: number;
  /** Isolates of the process parked by a catastrophic out-of-memory error: their memory never comes back. */
  readonly parked: number;
  /** The memory limits (MB) of the runs executing in it when rss was read. */
  readonly runningMb: readonly number[];
}

export type FromWorker =
  | WorkerHealth
  | { readonly type: 'call'; readonly id: number; readonly call: number; readonly fn: string; readonly args: unknown }
  | { readonly type: 'call-abort'; readonly id: number; readonly call: number; readonly reason: ErrorShape }
  /** Progress, outputs and call ends of one turn of the worker's loop, in order: one message, not one each. */
  | { readonly type: 'events'; readonly id: number; readonly events: readonly RunEvent[] }
  /** changes: what the run's store() calls did to its state, applied in serve as the run ends. */
  | { readonly type: 'done'; readonly id: number; readonly record: RunRecord; readonly changes?: StateChanges }
  | { readonly type: 'failed'; readonly id: number; readonly error: ErrorShape };

/** The plain-data part of runScript's options, as sent with a run. */
export function limitsOf(options: RunScriptOptions): RunLimits {
  const limits: { -readonly [K in keyof RunLimits]: RunLimits[K] } = {};
  if (options.timeoutMs !== undefined) limits.timeoutMs = options.timeoutMs;
  if (options.memoryLimitMb !== undefined) limits.memoryLimitMb = options.memoryLimitMb;
  if (options.outputLimitBytes !== undefined) limits.outputLimitBytes = options.outputLimitBytes;
  if (options.maxArgumentBytes !== undefined) limits.maxArgumentBytes = options.maxArgumentBytes;
  if (options.maxConcurrentCalls !== undefined) limits.maxConcurrentCalls = options.maxConcurrentCalls;
  if (options.filename !== undefined) limits.filename = options.filename;
  return limits;
}

/** The error again on this side: a BerryError when it had a code (abort reasons are read by code). */
export function rebuild(error: ErrorShape): Error {
  if (error.code !== undefined) return new BerryError(error.code as BerryErrorCode, error.message);
  return error.name === 'TypeError' ? new TypeError(error.message) : new Error(error.message);
}
