import { StreamableHTTPClientTransport, type FetchLike, type OAuthClientProvider } from '@modelcontextprotocol/client';
import type { RequestInit as UndiciRequestInit } from 'undici';
import { loadUndici } from '../../machine/lazy-modules.js';
import type { Machine } from '../../machine/machine.js';
import { createMcpFetch } from './mcp-fetch.js';
import type { JsonRpcId } from './resumable-stream.js';
import type { HttpStatusError } from './http-status-error.js';
import { settlesWithin } from '../../../common/abort.js';

/**
 * Response streams: reconnections in a row that may fail, their delays, and how long a server may
 * keep a stream open after its last response.
 */
const RESUME = { maxAttempts: 3, defaultRetryMs: 1000, minRetryMs: 100, maxRetryMs: 10_000, closeGraceMs: 2000 } as const;

/**
 * A fetch whose requests originate from `machine` and that refuses every redirect. The SDK follows
 * same-origin redirects itself unless the response never reaches it, so `redirect: 'error'` is
 * forced on every request, the GET event stream included.
 */
export function createMachineFetch(machine: Machine): FetchLike {
  const dispatcher = machine.dispatcher();
  const undiciFetch = loadUndici().fetch;
  return (async (url: string | URL, init?: RequestInit) => {
    // A keep-alive socket the server closed while this process was busy (parsing a large result,
    // a long synchronous task) is seen closed only when the event loop next polls. Yielding once
    // lets undici drop it; sent on it, the request fails with "other side closed".
    await new Promise(setImmediate);
    const response = await undiciFetch(url, {
      ...(init as UndiciRequestInit | undefined),
      redirect: 'error',
      dispatcher,
    });
    return response as unknown as Response;
  }) as FetchLike;
}

export interface HttpTransportOptions {
  readonly machine: Machine;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** OAuth for servers that answer 401 (the SDK runs the flow); without it a 401 fails the request. */
  readonly authProvider?: OAuthClientProvider | undefined;
  /** The provider checks the metadata's issuer itself (in `saveDiscoveryState`): the SDK's check is off. */
  readonly providerChecksIssuer?: boolean | undefined;
  /** Wraps the machine's fetch (the auth layer's refresh-and-retry on 401, the era probe's watch). */
  readonly wrapFetch?: ((fetch: FetchLike) => FetchLike) | undefined;
  /** Called once the standalone GET event stream is open, refused or not coming (see createMcpFetch). */
  readonly onEventStream?: () => void;
  /** A server request arrived on the response stream of our requests `related` (see createMcpFetch). */
  readonly onServerRequest?: (id: JsonRpcId, related: readonly JsonRpcId[]) => void;
  /** An error status the SDK reads itself, on the 2026-07-28 wire (see createMcpFetch). */
  readonly onModernErrorStatus?: (error: HttpStatusError) => void;
}

/** A Streamable HTTP client transport (no legacy SSE) whose traffic leaves from the machine. */
export function createHttpTransport(options: HttpTransportOptions): StreamableHTTPClientTransport {
  const url = new URL(options.url);
  return new StreamableHTTPClientTransport(url, {
    fetch: createMcpFetch({
      endpoint: url,
      fetch: options.wrapFetch ? options.wrapFetch(createMachineFetch(options.machine)) : createMachineFetch(options.machine),
      authFlow: options.authProvider !== undefined,
      resume: RESUME,
      ...(options.onEventStream ? { onEventStream: options.onEventStream } : {}),
      ...(options.onServerRequest ? { onServerRequest: options.onServerRequest } : {}),
      ...(options.onModernErrorStatus ? { onModernErrorStatus: options.onModernErrorStatus } : {}),
    }),
    requestInit: { headers: { ...options.headers } },
    ...(options.authProvider ? { authProvider: options.authProvider, skipIssuerMetadataValidation: options.providerChecksIssuer === true } : {}),
    // Response streams are resumed by createMcpFetch, bounded, failing the call when they cannot be;
    // the SDK's own reconnection stays off so the two never race (the standalone GET stream is not
    // resumed: server notifications sent while it is down are lost).
    reconnectionOptions: {
      maxReconnectionDelay: 30_000,
      initialReconnectionDelay: 1_000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 0,
    },
  });
}

/** Ends the server-side session (bounded) and closes the transport. Never throws. */
export async function closeHttpTransport(transport: StreamableHTTPClientTransport, timeoutMs = 2000): Promise<void> {
  await settlesWithin(
    transport.terminateSession().catch(() => {}),
    timeoutMs,
  );
  await transport.close().catch(() => {});
}
