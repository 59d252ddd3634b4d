export type * from './contract.js';
export { ConnectionPool } from './pool.js';
export type { ConnectionPoolOptions } from './pool.js';
export { createMcpHost } from './host.js';
export type { AuthorizeResult, CallOperationOptions, McpHost, McpHostOptions } from './host.js';
export type { LogEvent, LogSink } from './log.js';
