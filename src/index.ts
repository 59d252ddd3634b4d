export { createHost } from './host.js';
export type { Host, HostOptions, RunOptions } from './host.js';
export { ConnectionPool, createMcpHost } from './bindings/index.js';
export type * from './bindings/contract.js';
export type { ElicitationHandler, ElicitationParams, ElicitationResult } from './bindings/handlers.js';
export type { ApprovalAnswer, ApprovalRequest, ApproveCall } from './bindings/approval.js';
export type { AuthorizeResult, CallOperationOptions, ConnectionPoolOptions, LogEvent, LogSink, McpHost, McpHostOptions } from './bindings/index.js';
export type { AuthorizationUrlHandler } from './auth/index.js';
export { LocalMachine, SshMachine } from './remote/index.js';
export type {
  FileInfo,
  LifetimeEndEvent,
  LifetimeEndListener,
  Machine,
  MachineProcess,
  ProcessExit,
  SpawnSpec,
  SshMachineOptions,
} from './remote/index.js';
export {
  BerryError,
  CallTimeoutError,
  CancelledError,
  ConfigError,
  EnvVarMissingError,
  OAuthEndpointError,
  ProtocolError,
  SandboxUnavailableError,
  ServerStartError,
  TransportClosedError,
  isBerryError,
} from './errors.js';
export type { BerryErrorCode, SandboxUnavailableReason } from './errors.js';
export type { RunEntry, RunError, RunLog, RunOutput, RunProgress, RunRecord } from './runtime/index.js';
