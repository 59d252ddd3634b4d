// berry-mcp serve with a v2 SDK client in the 2026-07-28 era (stdio or Streamable HTTP), and `run`.
import { Client, StreamableHTTPClientTransport, type CallToolResult, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN } from './berry-serve.js';

export const MODERN = '2026-07-28';

export interface ModernClientOptions {
  readonly capabilities?: ClientOptions['capabilities'];
  /** `'auto'` probes with server/discover; the default pins 2026-07-28 (no fallback to initialize). */
  readonly negotiation?: 'auto' | 'pin';
  /** The fetch the transport uses (e.g. one bound to a source address: support/source-address.ts). */
  readonly fetch?: typeof fetch;
}

function newClient(options: ModernClientOptions): Client {
  return new Client(
    { name: 'serve-2026-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: options.negotiation === 'auto' ? 'auto' : { pin: MODERN } },
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    },
  );
}

/** `berry-mcp serve ARGS` over stdio with a 2026-era client. */
export async function modernStdio(
  args: string[],
  options: ModernClientOptions & { cwd: string; env?: Record<string, string> },
): Promise<{ client: Client; stderr(): string; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', ...args],
    cwd: options.cwd,
    stderr: 'pipe',
    env: { ...(process.env as Record<string, string>), ...options.env },
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = newClient(options);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A 2026-era client over Streamable HTTP to `url`, sending `Authorization: Bearer <token>`. */
export async function modernHttp(url: string, token: string, options: ModernClientOptions = {}): Promise<Client> {
  const client = newClient(options);
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit, ...(options.fetch ? { fetch: options.fetch } : {}) }));
  return client;
}

/** A run's structured answer (`structuredContent`), as serve's output schema gives it. */
export interface RunAnswer {
  readonly ok?: boolean;
  readonly result?: unknown;
  /** The run's state id (store/load), when it has one. */
  readonly state?: string;
  readonly error?: { readonly code?: string; readonly message: string };
  /** The state was not kept (a shared store failed). */
  readonly stateError?: { readonly code: string; readonly message: string };
}

/** Calls `run` with `code` on a v2 client, passing `state` back when given. */
export async function runModern(
  client: Client,
  code: string,
  options: { signal?: AbortSignal; onprogress?: (p: { progress: number; message?: string }) => void; timeoutMs?: number; state?: string } = {},
): Promise<CallToolResult> {
  return (await client.callTool(
    { name: 'run', arguments: { code, ...(options.state === undefined ? {} : { state: options.state }) } },
    {
      timeout: options.timeoutMs ?? 120_000,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onprogress ? { onprogress: options.onprogress } : {}),
    },
  )) as CallToolResult;
}

/** The text blocks of a result. */
export function modernTexts(result: CallToolResult): string[] {
  return result.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
}

/** The script's return value (structuredContent.result). */
export function resultOf(result: { structuredContent?: unknown }): unknown {
  return (result.structuredContent as { result?: unknown } | undefined)?.result;
}

/** The `_meta` envelope a 2026-07-28 request carries, as a client without an SDK writes it. */
export function modernMeta(capabilities: Record<string, unknown> = {}, clientName = 'raw-2026'): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
}

/** POSTs one 2026-07-28 request with its version and method headers; the response is the caller's to read. */
export function postModern(
  url: string,
  token: string,
  body: { id: string | number; method: string; params?: Record<string, unknown> },
  signal?: AbortSignal,
): Promise<Response> {
  const name: Record<string, string> = typeof body.params?.['name'] === 'string' ? { 'mcp-name': body.params['name'] as string } : {};
  return fetch(url, {
    method: 'POST',
    ...(signal ? { signal } : {}),
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': body.method,
      ...name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
}

/** The JSON-RPC messages of a whole response body (JSON, or the data lines of an event stream). */
export async function modernMessages(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return [JSON.parse(text) as Record<string, unknown>];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
}
