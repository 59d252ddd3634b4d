export { createHost } from './host.js';
export type { Host, HostOptions, RunOptions } from './host.js';
export { ConnectionPool, createMcpHost } from './bindings/index.js';
export type * from './bindings/contract.js';
export type { ElicitationHandler, ElicitationParams, ElicitationResult } from './bindings/handlers.js';
export type { ApprovalAnswer, ApprovalRequest, ApproveCall } from './bindings/operations/approval/approval.js';
export type { AuthorizeResult, CallOperationOptions, ConnectionPoolOptions, LogEvent, LogSink, McpHost, McpHostOptions } from './bindings/index.js';
export type { AuthorizationUrlHandler } from './auth/index.js';
export { LocalMachine, SshMachine } from './remote/machine/index.js';
export type {
  FileInfo,
  LifetimeEndEvent,
  LifetimeEndListener,
  Machine,
  MachineProcess,
  ProcessExit,
  SpawnSpec,
  SshMachineOptions,
} from './remote/machine/index.js';
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
export { createRunState, parkedIsolates } from './runtime/index.js';
export type { RunEntry, RunError, RunLog, RunOutput, RunProgress, RunRecord, RunState, RunStateLimits, RunStateOptions } from './runtime/index.js';
