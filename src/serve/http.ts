import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { LegacySessions } from './legacy-sessions.js';
import type { ModernScope, RunService } from './server.js';
import { toWebRequest, writeWebResponse } from './web-bridge.js';

export interface HttpServeOptions {
  /** `[HOST:]PORT`; the host defaults to 127.0.0.1. */
  readonly listen: { readonly host: string; readonly port: number };
  /** Required bearer token. */
  readonly token: string;
  /** Origins allowed besides loopback ones, e.g. `https://app.example.com`. */
  readonly allowOrigins?: readonly string[];
  /** A 2025 session with no open request or stream for this long is closed (a client that vanished). @default 1800000 */
  readonly sessionIdleMs?: number;
  /** 2025 sessions at once; a new one evicts the least recently seen session with no run executing or queued, else gets 503. @default 16 */
  readonly maxSessions?: number;
}

export interface HttpServing {
  readonly url: string;
  close(): Promise<void>;
}

/** Largest request body accepted (a script and its JSON-RPC envelope). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]:|([^:]+):)?(\d+)$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    throw new Error(`--http expects [HOST:]PORT (e.g. 8765 or 127.0.0.1:8765), got "${text}"`);
  }
  return { host: match[1] ?? match[2] ?? '127.0.0.1', port };
}

/** A fresh random token, used when BERRY_SERVE_TOKEN is not set. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Serves `service` over Streamable HTTP at /mcp, every request authenticated (Origin checked, then
 * the bearer token) before its era is looked at: 2025-11-25 clients in sessions, 2026-07-28 ones
 * statelessly, each request on its own (so several processes can share them behind a balancer).
 */
export async function serveHttp(service: RunService, options: HttpServeOptions): Promise<HttpServing> {
  const sessions = new LegacySessions(service, { idleMs: options.sessionIdleMs ?? 30 * 60_000, maxSessions: options.maxSessions ?? 16 });
  // The 2026 runs of every stateless request wait in one queue (no session tells their clients apart); a change reaches every listen stream.
  const scope: ModernScope = { client: {}, toolsChanged: () => modern.notify.toolsChanged() };
  const modern: McpHttpHandler = createMcpHandler(() => service.modernServer(scope), {
    legacy: 'reject',
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  const expected = digest(`Bearer ${options.token}`);
  const allowed = new Set((options.allowOrigins ?? []).map(normalizeOrigin));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== '/mcp') return reply(res, 404, 'Not found: the MCP endpoint is /mcp.');
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin) && !allowed.has(normalizeOrigin(origin))) {
      return reply(res, 403, `Forbidden: Origin ${origin} is not allowed (serve --allow-origin ORIGIN to allow it).`);
    }
    // Compare digests so the comparison takes the same time whatever the token's length.
    if (!timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return reply(res, 401, 'Unauthorized: send Authorization: Bearer <token> (BERRY_SERVE_TOKEN, or the token serve printed at start).');
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if ('error' in read) return reply(res, read.status, read.error);
      body = read.value;
    }
    const request = toWebRequest(req, res);
    // The era is the request's own: a 2026 one carries the _meta envelope (or names 2026 in MCP-Protocol-Version).
    if (!(await isLegacyRequest(request, body))) return writeWebResponse(res, await modern.fetch(request, { parsedBody: body }));
    const answer = await sessions.handle(req, res, request, body);
    if (answer instanceof Response) return writeWebResponse(res, answer);
    return reply(res, answer.status, answer.message, requestId(body));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `Internal error: ${(error as Error)?.message ?? String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/mcp`,
    close: async () => {
      await Promise.all([sessions.close(), modern.close()]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function readJson(req: IncomingMessage): Promise<{ value: unknown } | { status: number; error: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { status: 413, error: `Request body larger than ${MAX_BODY_BYTES} bytes.` };
    chunks.push(chunk as Buffer);
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { status: 400, error: 'Parse error: the body is not JSON.' };
  }
}

/** A refusal as a JSON-RPC error, carrying the request's id when it had one. */
function reply(res: ServerResponse, status: number, message: string, id: string | number | null = null): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: status === 400 ? -32600 : -32000, message }, id }));
}

function requestId(body: unknown): string | number | null {
  const id = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}

/** http(s)://localhost, 127.0.0.0/8 or [::1], any port. */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

