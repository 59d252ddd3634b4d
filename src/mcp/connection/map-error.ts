import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { BerryError, CallTimeoutError, ProtocolError, TransportClosedError, isBerryError } from '../../common/errors.js';
import { mapHttpError } from './map-http-error.js';

export interface ErrorContext {
  readonly server: string;
  /** What was being done, e.g. `tools/call "echo"`. */
  readonly operation: string;
  readonly timeoutMs: number;
  readonly redact: (text: string) => string;
  /** Exit and stderr details of a stdio server, when its connection closed. */
  readonly closedDetail: () => string;
  /**
   * True once the transport itself has ended (process gone, stdout closed, transport closed). The
   * SDK uses -32000 for its own "Connection closed", a code servers may send too.
   */
  readonly transportClosed?: () => boolean;
}

/** Error codes of sockets and pipes that are gone: the transport under a request died. */
const DEAD_TRANSPORT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Turns whatever the SDK threw into a BerryError, blaming the right party. The server's answer to
 * this one request (a JSON-RPC error, a malformed result) is a ProtocolError and the connection
 * lives; only a transport that has really ended is MCP_TRANSPORT_CLOSED, which replaces the
 * connection. Anything unrecognised takes the least destructive class: that request failed.
 */
export function mapSdkError(error: unknown, context: ErrorContext): BerryError {
  if (isBerryError(error)) return error;
  const http = mapHttpError(error, context);
  if (http) return http;
  const where = `server "${context.server}" (${context.operation})`;
  if (error instanceof McpError) {
    const closed = context.transportClosed?.() ?? /^MCP error -32000: Connection closed$/.test(error.message);
    if (error.code === ErrorCode.ConnectionClosed && closed) {
      const detail = context.closedDetail();
      return new TransportClosedError(
        `Connection to ${where} closed before it answered${detail ? `: ${detail}` : ''}. ` +
          'The call was not retried; the next operation reconnects.',
        detail,
        { cause: error },
      );
    }
    // The SDK's own timeout carries `data.timeout`; a server may answer -32001 for reasons of its own.
    if (error.code === ErrorCode.RequestTimeout && typeof (error.data as { timeout?: unknown } | undefined)?.timeout === 'number') {
      return new CallTimeoutError(
        `${where} did not answer within ${context.timeoutMs / 1000} s (no progress either). ` +
          'Raise "timeout" for this server in mcp.json if the tool is slow.',
        context.timeoutMs,
        { cause: error },
      );
    }
    return new ProtocolError(
      `${where} returned error ${error.code}: ${context.redact(oneLine(stripMcpPrefix(error.message)))}`,
      error.code,
    );
  }
  const issues = zodIssues(error);
  if (issues !== undefined) {
    return new ProtocolError(`${where} returned a malformed result: ${context.redact(issues)}. The connection stays open.`);
  }
  if (isDeadTransport(error)) {
    return new TransportClosedError(`${where} failed: ${context.redact(describeCause(error))}`, '');
  }
  return new ProtocolError(`${where} failed: ${context.redact(oneLine(describeCause(error)))}`);
}

/** The SDK prefixes "MCP error N: ", and a server built on it may already have: say it once. */
function stripMcpPrefix(message: string): string {
  return message.replace(/^(MCP error -?\d+: )+/, '');
}

function oneLine(text: string, max = 500): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** A zod validation failure as one line ("content: expected array, received string"), else undefined. */
function zodIssues(error: unknown): string | undefined {
  if (!(error instanceof Error) || !/ZodError/.test(error.name)) return undefined;
  const issues = (error as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return undefined;
  const parts = issues.slice(0, 3).map((issue: { path?: unknown; message?: unknown }) => {
    const path = Array.isArray(issue.path) && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return `${path}${String(issue.message ?? 'invalid')}`;
  });
  if (issues.length > 3) parts.push(`and ${issues.length - 3} more`);
  return oneLine(parts.join('; ') || 'does not match the MCP schema');
}

function isDeadTransport(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && DEAD_TRANSPORT_CODES.has(code)) return true;
    if (current.message === 'Not connected' || (current instanceof TypeError && current.message === 'fetch failed')) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** One line for any failure: a schema violation as its issues, anything else with its causes. */
export function describeFailure(error: unknown): string {
  const issues = zodIssues(error);
  return issues === undefined ? oneLine(describeCause(error)) : `malformed answer: ${issues}`;
}

/** Flattens an error and its causes into one line (undici hides the useful part in `cause`). */
export function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    if (current instanceof Error) {
      const text = current.message;
      if (/redirect/i.test(text) && !parts.some((p) => p.includes('redirect'))) {
        parts.push('the server answered with a redirect, which berry-mcp refuses: set "url" to the final address');
      } else if (text && !parts.includes(text)) {
        parts.push(text);
      }
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(': ') || 'unknown error';
}
