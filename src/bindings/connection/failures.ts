/**
 * What a failed request means, in one classifier: mapSdkError turns whatever the SDK threw into a
 * BerryError blaming the right party, with the HTTP reading (mapHttpError) as one of its cases.
 */
import { ProtocolError as RpcError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { BerryError, CallTimeoutError, ProtocolError, TransportClosedError, isBerryError } from '../../common/errors.js';
import { HttpStatusError, STREAM_LOST_MARK } from '../../remote/transport/index.js';

export interface ErrorContext {
  readonly server: string;
  /** What was being done, e.g. `tools/call "echo"`. */
  readonly operation: string;
  readonly timeoutMs: number;
  readonly redact: (text: string) => string;
  /** Exit and stderr details of a stdio server, when its connection closed. */
  readonly closedDetail: () => string;
  /**
   * True once the transport itself has ended (process gone, stdout closed, transport closed): a
   * request the SDK failed as "Connection closed" died with it.
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
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed && (context.transportClosed?.() ?? true)) {
    const detail = context.closedDetail();
    return new TransportClosedError(
      `Connection to ${where} closed before it answered${detail ? `: ${detail}` : ''}. The call was not retried; the next operation reconnects.`,
      detail,
      { cause: error },
    );
  }
  // The SDK's own timeout; a server answering -32001 is a server error like any other.
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return new CallTimeoutError(
      `${where} did not answer within ${context.timeoutMs / 1000} s (no progress either). ` +
        'Raise "timeout" for this server in mcp.json if the tool is slow.',
      context.timeoutMs,
      { cause: error },
    );
  }
  if (error instanceof RpcError) {
    return new ProtocolError(`${where} returned error ${error.code}: ${context.redact(oneLine(stripMcpPrefix(error.message)))}`, error.code);
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    return new ProtocolError(`${where} returned a malformed result: ${context.redact(resultIssues(error.message))}. The connection stays open.`);
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

export function oneLine(text: string, max = 500): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function zodIssues(error: unknown): string | undefined {
  if (!(error instanceof Error) || !/ZodError/.test(error.name)) return undefined;
  return issueLine((error as { issues?: unknown }).issues);
}

/** zod issues as one line ("content: expected array, received string"), else undefined. */
function issueLine(issues: unknown): string | undefined {
  if (!Array.isArray(issues)) return undefined;
  const parts = issues.slice(0, 3).map((issue: { path?: unknown; message?: unknown }) => {
    const path = Array.isArray(issue.path) && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return `${path}${String(issue.message ?? 'invalid')}`;
  });
  if (issues.length > 3) parts.push(`and ${issues.length - 3} more`);
  return oneLine(parts.join('; ') || 'does not match the MCP schema');
}

/** The SDK writes a result's schema issues as JSON after "Invalid result for METHOD: ": one line of them. */
function resultIssues(message: string): string {
  const text = message.replace(/^Invalid result for [^:]+: /, '');
  try {
    return issueLine(JSON.parse(text) as unknown) ?? oneLine(text);
  } catch {
    return oneLine(text);
  }
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

// HTTP.
/*
 * What HTTP failures mean, for one call: an error status or a bad body fails that call alone with
 * the status named; only an unknown session (404/400 to a request that carried one) ends the session.
 * Errors built from an HttpStatusError carry no `cause`: its raw body may echo a secret.
 */

/** True when a failure means the server forgot our session and the connection must be replaced. */
export function isSessionExpired(error: unknown): boolean {
  if (!(error instanceof HttpStatusError) || !error.hadSession) return false;
  // Servers answer an unknown session id with 404 (the spec) or 400 (server-everything).
  return error.status === 404 || (error.status === 400 && /session/i.test(error.body));
}

/** The HTTP-specific reading of `error`, or undefined when it is not an HTTP matter. */
export function mapHttpError(failure: unknown, context: ErrorContext): BerryError | undefined {
  const where = `server "${context.server}" (${context.operation})`;
  const error = fromSdkHttpError(failure);
  if (error instanceof RpcError && isStreamLost(error)) {
    return new TransportClosedError(
      `${where}: ${context.redact(error.message.replace(/^MCP error -?\d+: /, ''))}. The call was not retried; the session stays open.`,
      '',
      { cause: error },
    );
  }
  if (error instanceof HttpStatusError) {
    if (isSessionExpired(error)) {
      return new BerryError(
        'MCP_SESSION_EXPIRED',
        `${where}: the server no longer knows this session. The call was not retried; the next operation starts a new session.`,
      );
    }
    if (error.status === 401) return authRequired(context.server, error, context.redact);
    return new BerryError('MCP_PROTOCOL_ERROR', `${where} answered ${describeHttpStatus(error, context.redact)}. This call failed; the connection stays open.`);
  }
  if (error instanceof SyntaxError) {
    return new BerryError(
      'MCP_PROTOCOL_ERROR',
      `${where} answered with a body that is not valid JSON (cut off?): ${context.redact(error.message)}. This call failed; the connection stays open.`,
      { cause: error },
    );
  }
  if (error instanceof SdkError && (error.code === SdkErrorCode.ClientHttpUnexpectedContent || error.code === SdkErrorCode.ClientHttpFailedToOpenStream)) {
    return new BerryError('MCP_PROTOCOL_ERROR', `${where}: ${context.redact(error.message)}. This call failed.`, { cause: error });
  }
  return undefined;
}

/**
 * On the 2026-07-28 wire the SDK reads an error status itself (see mcp-fetch.ts) and throws an
 * SdkHttpError (its era probe too, for a 5xx): read as the HttpStatusError of the legacy wire (no
 * session on that wire).
 */
function fromSdkHttpError(error: unknown): unknown {
  if (!(error instanceof SdkHttpError) || (error.code !== SdkErrorCode.ClientHttpNotImplemented && error.code !== SdkErrorCode.EraNegotiationFailed))
    return error;
  if (typeof error.status !== 'number') return error;
  const text = error.data['text'];
  return new HttpStatusError({
    status: error.status,
    statusText: error.statusText ?? '',
    method: 'POST',
    hadSession: false,
    challenge: undefined,
    body: typeof text === 'string' ? text.slice(0, 2048) : '',
  });
}

/** An HTTP failure during initialize, in words: the status and what it likely means. */
export function describeHttpFailure(failure: unknown, redact: (text: string) => string): string | undefined {
  const error = fromSdkHttpError(failure);
  if (error instanceof HttpStatusError) return describeHttpStatus(error, redact);
  if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpUnexpectedContent) {
    return `${redact(oneLine(error.message, 200))}: the answer is not MCP (JSON or an event stream); check that "url" is the MCP endpoint`;
  }
  return undefined;
}

/** MCP_AUTH_REQUIRED naming the challenge's realm and scope. */
export function authRequired(server: string, error: HttpStatusError, redact: (text: string) => string): BerryError {
  const challenge = parseChallenge(error.challenge);
  const details = [
    challenge.scheme,
    challenge.params['realm'] === undefined ? undefined : `realm "${challenge.params['realm']}"`,
    challenge.params['scope'] === undefined ? undefined : `scope "${challenge.params['scope']}"`,
  ].filter((part) => part !== undefined);
  return new BerryError(
    'MCP_AUTH_REQUIRED',
    redact(
      `Server "${server}" needs authorization: it answered HTTP 401${details.length > 0 ? ` (${details.join(', ')})` : ''}. ` +
        'Give the credentials it expects in "headers" of its entry in mcp.json (for example "Authorization": "Bearer ${TOKEN}").',
    ),
  );
}

function describeHttpStatus(error: HttpStatusError, redact: (text: string) => string): string {
  const status = `HTTP ${error.status}${error.statusText ? ` ${error.statusText}` : ''} to ${error.method}`;
  const body = redact(error.body.replace(/\s+/g, ' ').trim()).slice(0, 200);
  return `${status}${hint(error) ? ` (${hint(error)})` : ''}${body ? `: ${body}` : ''}`;
}

function hint(error: HttpStatusError): string | undefined {
  const { status } = error;
  if (status === 401) return 'the server needs authorization';
  if (status === 403) return 'the credentials sent are not allowed to use this server';
  if (status === 404) return 'no MCP endpoint at this URL: check "url", including its path (often /mcp)';
  if (status === 405) return 'this URL does not take MCP requests: check that "url" is the MCP endpoint';
  if (status === 406 || status === 415) return 'the server refused the content type: it may not speak Streamable HTTP';
  if (status === 413) return 'the request was too large for the server';
  if (status === 429) return 'rate limited: try again later';
  if (status >= 500) return "the server failed: its own error, not berry-mcp's; see the server's logs or retry later";
  return undefined;
}

/** The stand-in answer for a response whose stream ended and could not be resumed. */
export function isStreamLost(error: unknown): boolean {
  if (!(error instanceof RpcError)) return false;
  const data = error.data as Record<string, unknown> | undefined;
  return typeof data === 'object' && data !== null && data[STREAM_LOST_MARK] === true;
}

/** `Bearer realm="x", scope="a b"` → scheme and parameters (first challenge only). */
function parseChallenge(header: string | undefined): { scheme: string | undefined; params: Record<string, string> } {
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!header) return { scheme: undefined, params };
  const scheme = /^\s*([A-Za-z][\w-]*)/.exec(header)?.[1];
  for (const match of header.matchAll(/([\w-]+)=("((?:[^"\\]|\\.)*)"|[^\s,]+)/g)) {
    const name = match[1]!.toLowerCase();
    params[name] ??= (match[3] ?? match[2]!).replace(/\\(.)/g, '$1').slice(0, 200);
  }
  return { scheme, params };
}
