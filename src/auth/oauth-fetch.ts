/**
 * The one fetch every OAuth request goes through (protected-resource and authorization-server
 * metadata, registration, token, refresh): each response is read whole here, bounded in size
 * while it streams and in time from the request to its last byte, so a hostile or broken
 * authorization server costs at most `maxBytes` of memory and `timeoutMs` of waiting.
 *
 * The body is handed on as the global `Response`: undici's own fails the SDK's
 * `instanceof Response`, which turned the server's OAuth error into "Raw body: [object Response]".
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { onAbort } from '../common/abort.js';
import { CancelledError, OAuthEndpointError } from '../common/errors.js';

/** An OAuth document or token response is a few KB; 1 MiB leaves room for any real one. */
export const OAUTH_MAX_RESPONSE_BYTES = 1024 * 1024;
/** From sending the request to the last byte of the response; under the 30 s cap on a whole connect, so the endpoint is named. */
export const OAUTH_REQUEST_TIMEOUT_MS = 15_000;

export interface OAuthFetchLimits {
  /** @default OAUTH_MAX_RESPONSE_BYTES */
  readonly maxBytes?: number;
  /** @default OAUTH_REQUEST_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

/** Statuses whose Response may not have a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The endpoint as it may be shown: no user info, query (it may carry a secret) or fragment. */
export function endpointName(url: string | URL): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

export function boundOAuthFetch(base: FetchLike, limits: OAuthFetchLimits = {}): FetchLike {
  const maxBytes = limits.maxBytes ?? OAUTH_MAX_RESPONSE_BYTES;
  const timeoutMs = limits.timeoutMs ?? OAUTH_REQUEST_TIMEOUT_MS;
  return async (url, init) => {
    const endpoint = endpointName(url);
    const caller = init?.signal ?? undefined;
    caller?.throwIfAborted();
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, timeoutMs);
    const forget = caller ? onAbort(caller, () => deadline.abort()) : undefined;
    try {
      const response = await base(url, { ...init, signal: deadline.signal });
      const body = await readBounded(response, endpoint, maxBytes);
      const copy = new Response(NULL_BODY.has(response.status) ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
      // The SDK names redirect targets relative to it.
      Object.defineProperty(copy, 'url', { value: response.url });
      return copy;
    } catch (error) {
      if (timedOut) {
        throw new OAuthEndpointError(
          'MCP_TIMEOUT',
          `The OAuth endpoint ${endpoint} did not answer completely within ${timeoutMs / 1000} s; try again later, or ask its operator.`,
          { endpoint, limit: timeoutMs },
          { cause: error },
        );
      }
      if (caller?.aborted) throw new CancelledError(`The request to the OAuth endpoint ${endpoint} was cancelled.`, { cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
      forget?.();
    }
  };
}

// Chunk by chunk, so an endless body stops costing memory the moment it passes the cap.
async function readBounded(response: Response, endpoint: string, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = (size: string): OAuthEndpointError =>
    new OAuthEndpointError(
      'MCP_AUTH_RESPONSE_TOO_LARGE',
      `The OAuth endpoint ${endpoint} sent a response of ${size}, over the ${maxBytes} byte limit for OAuth responses; the response was dropped. Check the server's OAuth configuration.`,
      { endpoint, limit: maxBytes },
    );
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(`${declared} bytes (Content-Length)`);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(`more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
