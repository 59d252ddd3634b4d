/**
 * Typed errors with stable codes. Every failure berry-mcp reports is a BerryError; callers and
 * scripts branch on `code`, never on message text.
 */

export type BerryErrorCode =
  | 'MCP_CONFIG_INVALID'
  | 'MCP_ENV_MISSING'
  | 'MCP_UNKNOWN_SERVER'
  | 'MCP_UNKNOWN_TOOL'
  | 'MCP_SERVER_DISABLED'
  | 'MCP_INVALID_ARGUMENT'
  | 'MCP_CONNECT_FAILED'
  | 'MCP_TIMEOUT'
  | 'MCP_CANCELLED'
  | 'MCP_TRANSPORT_CLOSED'
  | 'MCP_SESSION_EXPIRED'
  | 'MCP_PROTOCOL_ERROR'
  | 'MCP_PROTOCOL_VERSION_UNSUPPORTED'
  | 'MCP_HEADER_MISMATCH'
  | 'MCP_CAPABILITY_MISSING'
  | 'MCP_INPUT_UNSUPPORTED'
  | 'MCP_AUTH_REQUIRED'
  | 'MCP_AUTH_RESPONSE_TOO_LARGE'
  | 'MCP_AUTH_ISSUER_MISMATCH'
  | 'MCP_TOKEN_STORE_UNSAFE'
  | 'MCP_UNKNOWN_RESOURCE'
  | 'MCP_UNKNOWN_PROMPT'
  | 'MCP_CALL_REFUSED'
  | 'MCP_MESSAGE_TOO_LARGE'
  | 'MCP_RESULT_TOO_LARGE'
  | 'MCP_SANDBOX_UNAVAILABLE'
  | 'MCP_HOST_CLOSED'
  | 'MCP_CONFIG_CHANGED'
  | 'MCP_CONFIG_WRITE_FAILED'
  | 'MACHINE_UNAVAILABLE'
  | 'SCRIPT_ERROR'
  | 'SCRIPT_TIMEOUT'
  | 'SCRIPT_MEMORY_LIMIT'
  | 'SCRIPT_ABORTED'
  | 'SCRIPT_SETUP_FAILED'
  | 'SCRIPT_TYPESCRIPT_UNSUPPORTED'
  | 'SCRIPT_STATE_LIMIT'
  | 'SCRIPT_CHECK_FAILED'
  | 'SERVE_QUEUE_FULL'
  | 'SERVE_SESSION_LIMIT'
  | 'SERVE_STREAM_LIMIT'
  | 'SERVE_STATE_UNKNOWN'
  | 'SERVE_WORKER_FAILED'
  | 'BERRY_STORE_UNAVAILABLE'
  | 'BERRY_STORE_KEY_INVALID'
  | 'BERRY_STORE_RECORD_INVALID';

const BRAND = Symbol.for('berry-mcp.error');

export interface BerryErrorOptions {
  readonly cause?: unknown;
}

export class BerryError extends Error {
  readonly code: BerryErrorCode;
  declare readonly [BRAND]: true;

  constructor(code: BerryErrorCode, message: string, options: BerryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }

  override get name(): string {
    return this.constructor.name;
  }
}

/** True for any BerryError, across realms and duplicated copies of this module. */
export function isBerryError(value: unknown): value is BerryError {
  return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

export class ConfigError extends BerryError {
  readonly file: string;
  readonly server: string | undefined;
  readonly jsonPath: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(message: string, details: { file: string; server?: string; jsonPath?: string; line?: number; column?: number }, options?: BerryErrorOptions) {
    super('MCP_CONFIG_INVALID', message, options);
    this.file = details.file;
    this.server = details.server;
    this.jsonPath = details.jsonPath;
    this.line = details.line;
    this.column = details.column;
  }
}

export class EnvVarMissingError extends BerryError {
  readonly names: readonly string[];
  readonly server: string;
  readonly file: string;

  constructor(message: string, details: { names: readonly string[]; server: string; file: string }) {
    super('MCP_ENV_MISSING', message);
    this.names = details.names;
    this.server = details.server;
    this.file = details.file;
  }
}

export class ServerStartError extends BerryError {
  readonly server: string;
  readonly command: string | undefined;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly stderrTail: string;
  readonly durationMs: number;

  constructor(
    message: string,
    details: {
      server: string;
      command?: string;
      exitCode?: number;
      signal?: string;
      stderrTail?: string;
      durationMs: number;
    },
    options?: BerryErrorOptions,
  ) {
    super('MCP_CONNECT_FAILED', message, options);
    this.server = details.server;
    this.command = details.command;
    this.exitCode = details.exitCode;
    this.signal = details.signal;
    this.stderrTail = details.stderrTail ?? '';
    this.durationMs = details.durationMs;
  }
}

/**
 * Why a server that must run confined (`sandbox`) could not be. `bind-symlink`: a mount's path
 * passes through a symlink a confined server could have placed; `bind-permission`: as root, the
 * unprivileged uid cannot use a mount (rw not writable, workspace not searchable);
 * `bwrap-untrusted`: bwrap was found where a confined server could have replaced it.
 */
export type SandboxUnavailableReason =
  | 'bwrap-missing'
  | 'bind-missing'
  | 'namespace-refused'
  | 'setpriv-missing'
  | 'bind-symlink'
  | 'bind-permission'
  | 'bwrap-untrusted'
  | 'too-many-binds';

/** A stdio server that must be confined and cannot be: it was not started (never unconfined). */
export class SandboxUnavailableError extends BerryError {
  readonly server: string;
  readonly reason: SandboxUnavailableReason;
  /** The path at fault: the missing bind source, the mount refused, the untrusted bwrap. */
  readonly path: string | undefined;
  /** The symlink a mount's path passes through (`bind-symlink`). */
  readonly symlink: string | undefined;

  constructor(message: string, details: { server: string; reason: SandboxUnavailableReason; path?: string; symlink?: string }) {
    super('MCP_SANDBOX_UNAVAILABLE', message);
    this.server = details.server;
    this.reason = details.reason;
    this.path = details.path;
    this.symlink = details.symlink;
  }
}

export class CallTimeoutError extends BerryError {
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number, options?: BerryErrorOptions) {
    super('MCP_TIMEOUT', message, options);
    this.timeoutMs = timeoutMs;
  }
}

export class CancelledError extends BerryError {
  constructor(message: string, options?: BerryErrorOptions) {
    super('MCP_CANCELLED', message, options);
  }
}

export class TransportClosedError extends BerryError {
  readonly stderrTail: string;

  constructor(message: string, stderrTail = '', options?: BerryErrorOptions) {
    super('MCP_TRANSPORT_CLOSED', message, options);
    this.stderrTail = stderrTail;
  }
}

/**
 * The server's answer to one request was an error or unusable (a JSON-RPC error, a malformed
 * result): that request failed, the connection lives on.
 */
export class ProtocolError extends BerryError {
  /** The JSON-RPC error code, when the server answered with one. */
  readonly rpcCode: number | undefined;

  constructor(message: string, rpcCode?: number, options?: BerryErrorOptions) {
    super('MCP_PROTOCOL_ERROR', message, options);
    this.rpcCode = rpcCode;
  }
}

/**
 * The server and berry-mcp share no protocol revision (JSON-RPC -32022, or a failed era
 * negotiation): the message names what each side speaks.
 */
export class ProtocolVersionError extends BerryError {
  readonly server: string;
  /** The revisions the server said it supports; empty when it did not say. */
  readonly serverVersions: readonly string[];
  /** The revisions berry-mcp offered (one when the entry pins `protocol`). */
  readonly clientVersions: readonly string[];

  constructor(message: string, details: { server: string; serverVersions: readonly string[]; clientVersions: readonly string[] }, options?: BerryErrorOptions) {
    super('MCP_PROTOCOL_VERSION_UNSUPPORTED', message, options);
    this.server = details.server;
    this.serverVersions = details.serverVersions;
    this.clientVersions = details.clientVersions;
  }
}

/**
 * An OAuth endpoint's response broke a bound: over the size cap (`MCP_AUTH_RESPONSE_TOO_LARGE`)
 * or not complete by the deadline (`MCP_TIMEOUT`). `endpoint` has no query or user info.
 */
export class OAuthEndpointError extends BerryError {
  readonly endpoint: string;
  /** The bound that was passed: bytes, or milliseconds. */
  readonly limit: number;

  constructor(code: 'MCP_AUTH_RESPONSE_TOO_LARGE' | 'MCP_TIMEOUT', message: string, details: { endpoint: string; limit: number }, options?: BerryErrorOptions) {
    super(code, message, options);
    this.endpoint = details.endpoint;
    this.limit = details.limit;
  }
}
