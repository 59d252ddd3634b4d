export type * from './contract.js';
export { ConnectionPool } from './pool/pool.js';
export type { ConnectionPoolOptions } from './pool/pool.js';
export { createMcpHost, MachineHost } from './host.js';
export type { AuthorizeResult, CallOperationOptions, McpHost, McpHostOptions } from './host.js';
export type { LogEvent, LogSink } from './log.js';
export { runChecked } from './check/checked-run.js';
export type { CheckProblem, ScriptCheck, ScriptCheckOptions } from './check/check-script.js';
