/**
 * The sandbox layer: runs one script in a fresh isolated-vm isolate where a table of async host
 * functions appears as `tools.<name>`. Knows nothing about MCP.
 */
export { runScript } from './run-script.js';
export { DEFAULT_WARM_ISOLATES, IsolatePool } from './warm-pool.js';
export { shapeHostError } from './bridge.js';
export { beyondLimit } from './crossing.js';
export { DEFAULT_MEMORY_LIMIT_MB } from './options.js';
export { parkedIsolates } from './parked.js';
export { checkNodeFlags } from './node-flags.js';
export { createRunState, DEFAULT_STATE_LIMITS, StateValues } from './state/run-state.js';
export type { RunState, RunStateLimits, RunStateOptions, StateChanges, StateSnapshot } from './state/run-state.js';
export type {
  ErrorShape,
  HostCallContext,
  HostFunction,
  HostProgress,
  RunError,
  RunEntry,
  RunLog,
  RunLogLevel,
  RunOutput,
  RunProblem,
  RunProgress,
  RunRecord,
  RunScriptOptions,
} from './types.js';
