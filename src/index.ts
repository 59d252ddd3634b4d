export { createHost } from './host.js';
export type { Host, HostOptions, RunOptions } from './host.js';
export { ConnectionPool, createMcpHost } from './mcp/index.js';
export type * from './mcp/contract.js';
export type { ElicitationHandler, ElicitationParams, ElicitationResult } from './mcp/handlers.js';
export type { ApprovalAnswer, ApprovalRequest, ApproveCall } from './mcp/operations/approval.js';
export type { AuthorizeResult, CallOperationOptions, ConnectionPoolOptions, LogEvent, LogSink, McpHost, McpHostOptions } from './mcp/index.js';
export type { AuthorizationUrlHandler } from './auth/index.js';
export { LocalMachine, SshMachine } from './machine/index.js';
export type {
  FileInfo,
  LifetimeEndEvent,
  LifetimeEndListener,
  Machine,
  MachineProcess,
  ProcessExit,
  SpawnSpec,
  SshMachineOptions,
} from './machine/index.js';
export {
  BerryError,
  CallTimeoutError,
  CancelledError,
  ConfigError,
  EnvVarMissingError,
  OAuthEndpointError,
  ProtocolError,
  ProtocolVersionError,
  SandboxUnavailableError,
  ServerStartError,
  TransportClosedError,
  isBerryError,
} from './common/errors.js';
export type { BerryErrorCode, SandboxUnavailableReason } from './common/errors.js';
export { parkedIsolates } from './runtime/index.js';
export type { RunEntry, RunError, RunLog, RunOutput, RunProgress, RunRecord } from './runtime/index.js';
