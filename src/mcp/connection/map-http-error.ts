/**
 * What HTTP failures mean, for one call: an error status or a bad body fails that call alone with
 * the status named; only an unknown session (404/400 to a request that carried one) ends the session.
 * Errors built from an HttpStatusError carry no `cause`: its raw body may echo a secret.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { BerryError, TransportClosedError } from '../../common/errors.js';
import { HttpStatusError, STREAM_LOST_MARK } from '../../transport/index.js';
import type { ErrorContext } from './map-error.js';

/** True when a failure means the server forgot our session and the connection must be replaced. */
export function isSessionExpired(error: unknown): boolean {
  if (!(error instanceof HttpStatusError) || !error.hadSession) return false;
  // Servers answer an unknown session id with 404 (the spec) or 400 (server-everything).
  return error.status === 404 || (error.status === 400 && /session/i.test(error.body));
}

/** The HTTP-specific reading of `error`, or undefined when it is not an HTTP matter. */
export function mapHttpError(error: unknown, context: ErrorContext): BerryError | undefined {
  const where = `server "${context.server}" (${context.operation})`;
  if (error instanceof McpError && isStreamLost(error)) {
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
    return new BerryError(
      'MCP_PROTOCOL_ERROR',
      `${where} answered ${describeHttpStatus(error, context.redact)}. This call failed; the connection stays open.`,
    );
  }
  if (error instanceof SyntaxError) {
    return new BerryError(
      'MCP_PROTOCOL_ERROR',
      `${where} answered with a body that is not valid JSON (cut off?): ${context.redact(error.message)}. This call failed; the connection stays open.`,
      { cause: error },
    );
  }
  if (error instanceof StreamableHTTPError && error.code === -1) {
    return new BerryError('MCP_PROTOCOL_ERROR', `${where}: ${context.redact(error.message)}. This call failed.`, { cause: error });
  }
  return undefined;
}

/** An HTTP failure during initialize, in words: the status and what it likely means. */
export function describeHttpFailure(error: unknown, redact: (text: string) => string): string | undefined {
  return error instanceof HttpStatusError ? describeHttpStatus(error, redact) : undefined;
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
  if (!(error instanceof McpError)) return false;
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
