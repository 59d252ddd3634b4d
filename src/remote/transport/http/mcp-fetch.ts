/**
 * The fetch the Streamable HTTP transport uses for its MCP endpoint, with what the SDK transport
 * leaves out:
 * - a GET event stream answered 405, or 404 without a session, is "no stream here" (the SDK only
 *   knows 405), not an expired session;
 * - an error status becomes an HttpStatusError that names the status and whether a session was sent,
 *   except on the 2026-07-28 wire, where the SDK reads the status and a JSON-RPC error in the body
 *   (the era probe, -32022): there the body is passed on cut to 2 KB;
 * - a POST's event stream that ends before its response is resumed (see resumable-stream.ts);
 * - `notifications/cancelled` aborts the POST of the request it cancels, so a timed-out or
 *   cancelled call holds no HTTP request open;
 * - it tells when the standalone GET event stream is settled (see onEventStream).
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { onAbort } from '../../../common/abort.js';
import { httpStatusError, type HttpStatusError } from './http-status-error.js';
import { isJsonRpcId, resumableStream, type JsonRpcId } from './resumable-stream.js';

export interface McpFetchOptions {
  readonly endpoint: URL;
  /** The machine's fetch; requests to other URLs (OAuth discovery) pass through it untouched. */
  readonly fetch: FetchLike;
  /** Hand 401/403 answers to the SDK (it runs the OAuth flow) instead of failing them. */
  readonly authFlow: boolean;
  readonly resume: {
    readonly maxAttempts: number;
    readonly defaultRetryMs: number;
    readonly minRetryMs: number;
    readonly maxRetryMs: number;
    readonly closeGraceMs: number;
  };
  /**
   * Called once when the standalone GET event stream is open (its headers arrived: the server has
   * registered it), refused or failed, or when the answer to `notifications/initialized` means the
   * SDK opens none. Until then a server request sent outside any POST (an `elicitation/create`
   * without a related request id, as the SDK's own examples send it) has nowhere to go and is lost.
   */
  readonly onEventStream?: () => void;
  /**
   * A server request (an `elicitation/create`) arrived on the response stream of a POST: `related`
   * are the ids of the requests that POST carried. Called before the SDK reads the request.
   */
  readonly onServerRequest?: (id: JsonRpcId, related: readonly JsonRpcId[]) => void;
  /**
   * An error status on the 2026-07-28 wire, which the SDK reads itself (and, answering its era
   * probe, may take for "no 2026-07-28 here" without saying the status): who failed is decided
   * with it.
   */
  readonly onModernErrorStatus?: (error: HttpStatusError) => void;
}

// Above this a POST body is not parsed to find its id: the SDK writes the id last.
const INSPECT_LIMIT = 1024 * 1024;

export function createMcpFetch(options: McpFetchOptions): FetchLike {
  const base = options.fetch;
  const endpoint = options.endpoint.href;
  /** POSTs in flight, by the JSON key of the request id they carry. */
  const inflight = new Map<string, AbortController>();
  let eventStreamPending = true;
  const eventStreamSettled = (): void => {
    if (!eventStreamPending) return;
    eventStreamPending = false;
    options.onEventStream?.();
  };

  const failStatus = async (method: string, response: Response, hadSession: boolean, modern = false): Promise<Response> => {
    if (options.authFlow && (response.status === 401 || response.status === 403)) return response;
    const error = await httpStatusError(method, response, hadSession);
    // 401 and 403 stay ours on either wire: the message names the challenge.
    if (!modern || response.status === 401 || response.status === 403) throw error;
    options.onModernErrorStatus?.(error);
    return new Response(error.body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  async function get(url: string | URL, init: RequestInit | undefined, hadSession: boolean): Promise<Response> {
    let response: Response;
    try {
      response = await base(url, init);
    } finally {
      eventStreamSettled();
    }
    if (response.ok) return response;
    // 405 is the spec's "no GET stream"; without a session a 404 can only mean the same.
    if (response.status === 405 || (!hadSession && response.status === 404)) {
      await response.body?.cancel().catch(() => {});
      return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
    }
    return failStatus('GET', response, hadSession);
  }

  async function post(url: string | URL, init: RequestInit, headers: Headers, hadSession: boolean): Promise<Response> {
    const { requests, cancels, initialized } = inspect(init.body);
    // The SDK sends Mcp-Method on the 2026-07-28 wire only.
    const modern = headers.has('mcp-method');
    for (const id of cancels) inflight.get(JSON.stringify(id))?.abort();
    // Each POST gets its own signal, linked to the transport's: undici adds a listener to the signal
    // it is given and keeps it past the response, which piled up on the transport's long-lived one.
    const ac = new AbortController();
    const outer = init.signal;
    let forget: (() => void) | undefined;
    if (outer?.aborted) ac.abort();
    else if (outer) forget = onAbort(outer, () => ac.abort());
    const keys = requests.map((id) => JSON.stringify(id));
    for (const key of keys) inflight.set(key, ac);
    const done = (): void => {
      for (const key of keys) if (inflight.get(key) === ac) inflight.delete(key);
      forget?.();
    };
    let response: Response;
    try {
      response = await base(url, { ...init, signal: ac.signal });
    } catch (error) {
      done();
      if (initialized) eventStreamSettled();
      throw error;
    }
    // The SDK opens the GET stream only after a 202 to `notifications/initialized`.
    if (initialized && response.status !== 202) eventStreamSettled();
    if (!response.ok) {
      done();
      return failStatus('POST', response, hadSession, modern);
    }
    const type = response.headers.get('content-type') ?? '';
    if (requests.length === 0 || !response.body || !/^text\/event-stream/i.test(type)) {
      done();
      return response;
    }
    const body = resumableStream({
      first: response.body,
      ids: requests,
      signal: ac.signal,
      ...options.resume,
      onEnd: done,
      ...(options.onServerRequest ? { onServerRequest: (id: JsonRpcId) => options.onServerRequest?.(id, requests) } : {}),
      reconnect: (lastEventId, signal) => base(url, { method: 'GET', headers: resumeHeaders(headers, lastEventId), signal }),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  return (async (url: string | URL, init?: RequestInit) => {
    if ((url instanceof URL ? url.href : String(url)) !== endpoint) return base(url, init);
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    const hadSession = headers.has('mcp-session-id');
    if (method === 'GET') return get(url, init, hadSession);
    if (method === 'POST' && init) return post(url, init, headers, hadSession);
    return base(url, init);
  }) as FetchLike;
}

/** The POST's headers (session, protocol version, credentials) for the GET that resumes its stream. */
function resumeHeaders(post: Headers, lastEventId: string): Headers {
  const headers = new Headers(post);
  headers.delete('content-type');
  headers.delete('content-length');
  headers.set('accept', 'text/event-stream');
  headers.set('last-event-id', lastEventId);
  return headers;
}

interface PostBody {
  readonly requests: JsonRpcId[];
  readonly cancels: JsonRpcId[];
  readonly initialized: boolean;
}

/** The ids of the requests a POST body carries, of the requests it cancels, and whether it ends the handshake. */
function inspect(body: unknown): PostBody {
  const requests: JsonRpcId[] = [];
  const cancels: JsonRpcId[] = [];
  let initialized = false;
  if (typeof body !== 'string') return { requests, cancels, initialized };
  if (body.length > INSPECT_LIMIT) {
    const id = /"id":(-?\d+|"(?:[^"\\]|\\.)*")\}$/.exec(body.slice(-200));
    if (id && body.startsWith('{"method":')) requests.push(JSON.parse(id[1]!) as JsonRpcId);
    return { requests, cancels, initialized };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { requests, cancels, initialized };
  }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof message !== 'object' || message === null) continue;
    const m = message as { method?: unknown; id?: unknown; params?: { requestId?: unknown } };
    if (typeof m.method !== 'string') continue;
    if (isJsonRpcId(m.id)) requests.push(m.id);
    else if (m.method === 'notifications/cancelled' && isJsonRpcId(m.params?.requestId)) cancels.push(m.params.requestId);
    else if (m.method === 'notifications/initialized') initialized = true;
  }
  return { requests, cancels, initialized };
}
