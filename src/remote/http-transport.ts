import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestInit as UndiciRequestInit } from 'undici';
import { loadUndici } from './lazy-modules.js';
import type { Machine } from './machine.js';

/**
 * A fetch whose requests originate from `machine` and that refuses every redirect. The SDK follows
 * same-origin redirects itself unless the response never reaches it, so `redirect: 'error'` is
 * forced on every request, the GET event stream included.
 */
export function createMachineFetch(machine: Machine): FetchLike {
  const dispatcher = machine.dispatcher();
  const undiciFetch = loadUndici().fetch;
  return (async (url: string | URL, init?: RequestInit) => {
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
  /** Answers 401s with the MCP authorization flow (src/auth). */
  readonly authProvider?: OAuthClientProvider;
  /** Wraps the machine's fetch (the auth layer's refresh-and-retry on 401). */
  readonly wrapFetch?: (fetch: FetchLike) => FetchLike;
}

/** A Streamable HTTP client transport (no legacy SSE) whose traffic leaves from the machine. */
export function createHttpTransport(options: HttpTransportOptions): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(options.url), {
    fetch: options.wrapFetch ? options.wrapFetch(createMachineFetch(options.machine)) : createMachineFetch(options.machine),
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    requestInit: { headers: { ...options.headers } },
    // A lost event stream is not resumed: the next operation reconnects instead of replaying.
    reconnectionOptions: {
      maxReconnectionDelay: 30_000,
      initialReconnectionDelay: 1_000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 0,
    },
  });
}

/** Ends the server-side session (bounded) and closes the transport. Never throws. */
export async function closeHttpTransport(
  transport: StreamableHTTPClientTransport,
  timeoutMs = 2000,
): Promise<void> {
  const timer = AbortSignal.timeout(timeoutMs);
  await Promise.race([
    transport.terminateSession().catch(() => {}),
    new Promise((resolve) => timer.addEventListener('abort', resolve, { once: true })),
  ]);
  await transport.close().catch(() => {});
}
