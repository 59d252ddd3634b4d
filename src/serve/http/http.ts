import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, InMemoryServerEventBus, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { BerryErrorCode } from '../../common/errors.js';
import { Holders, type Holder, type ServeToken } from './holders.js';
import { normalizeHttpLimits } from './http-limits.js';
import { LegacySessions } from './legacy-sessions.js';
import type { ModernScope, RunService } from '../server.js';
import { toWebRequest, writeWebResponse } from './web-bridge.js';

/**
 * Who a client is, per revision, over HTTP: the holder of a bearer token is the unit of fairness
 * (its caps hold across all its clients and both revisions); within it, a 2025-11-25 client is its
 * session, and every 2026-07-28 request of the holder is one client (such a request carries only
 * what its sender chooses to say, e.g. `_meta` clientInfo, so nothing in it may split a holder).
 */
export interface HttpServeOptions {
  /** `[HOST:]PORT`; the host defaults to 127.0.0.1. */
  readonly listen: { readonly host: string; readonly port: number };
  /** The bearer token of the one holder (BERRY_SERVE_TOKEN); give this or `tokens`. */
  readonly token?: string;
  /** Named bearer tokens, each a holder with caps of its own (serve --token-file); instead of `token`. */
  readonly tokens?: readonly ServeToken[];
  /** Origins allowed besides loopback ones, e.g. `https://app.example.com`. */
  readonly allowOrigins?: readonly string[];
  /** A 2025 session with no open request or stream for this long is closed (a client that vanished). @default 1800000 */
  readonly sessionIdleMs?: number;
  /** 2025 sessions at once; a new one past a cap takes an idle one's place, else is refused. @default 16 */
  readonly maxSessions?: number;
  /** 2025 sessions of one holder. @default maxSessions with one token, else three quarters of it (12) */
  readonly maxHolderSessions?: number;
  /** Runs one client (a session; a holder's 2026 requests) executes at once. @default three quarters of the service's maxConcurrency, at least 1 (6 of 8) */
  readonly maxClientConcurrency?: number;
  /** Runs one holder's clients execute at once together. @default the service's maxConcurrency with one token, else as maxClientConcurrency's default */
  readonly maxHolderConcurrency?: number;
  /** `subscriptions/listen` streams one holder keeps open. @default 16 */
  readonly maxHolderStreams?: number;
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

/** The holders `options` name, with their caps filled and checked against `limit` (the runs executing at once). */
export function httpHolders(options: Omit<HttpServeOptions, 'listen'>, limit: number): Holders {
  if ((options.token === undefined) === (options.tokens === undefined)) throw new TypeError('serveHttp needs either token or tokens');
  const tokens = options.tokens ?? [{ name: 'token', token: options.token! }];
  if (tokens.length === 0) throw new TypeError('serveHttp needs at least one token');
  return new Holders(tokens, normalizeHttpLimits(options, { limit, holders: tokens.length }));
}

/**
 * Serves `service` over Streamable HTTP at /mcp, every request authenticated (Origin checked, then
 * the bearer token, which names its holder) before its era is looked at: 2025-11-25 clients in
 * sessions, 2026-07-28 ones statelessly, each request on its own (so several processes can share
 * them behind a balancer).
 */
export async function serveHttp(service: RunService, options: HttpServeOptions): Promise<HttpServing> {
  const holders = httpHolders(options, service.queue.limit);
  const sessions = new LegacySessions(service, { idleMs: options.sessionIdleMs ?? 30 * 60_000, holders });
  // One bus for every holder's handler: a change of servers reaches every listen stream once.
  const bus = new InMemoryServerEventBus();
  const toolsChanged = (): void => bus.publish({ kind: 'tools_list_changed' });
  // A handler per holder, made at its first 2026 request: its runs are its one client's.
  const modern = new Map<Holder, McpHttpHandler>();
  const modernOf = (holder: Holder): McpHttpHandler => {
    let handler = modern.get(holder);
    if (handler === undefined) {
      const scope: ModernScope = { client: holder.modern, toolsChanged };
      handler = createMcpHandler(() => service.modernServer(scope), {
        legacy: 'reject',
        maxRequestBodySize: MAX_BODY_BYTES,
        bus,
        // Ours refuses first, with a code; the SDK's is the same cap, behind it.
        maxSubscriptions: holders.limits.maxHolderStreams,
      });
      modern.set(holder, handler);
    }
    return handler;
  };
  const allowed = new Set((options.allowOrigins ?? []).map(normalizeOrigin));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/healthz') return healthz(req, res);
    if (path !== '/mcp') return reply(res, 404, 'Not found: the MCP endpoint is /mcp.');
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin) && !allowed.has(normalizeOrigin(origin))) {
      return reply(res, 403, `Forbidden: Origin ${origin} is not allowed (serve --allow-origin ORIGIN to allow it).`);
    }
    const holder = holders.authenticate(req.headers.authorization);
    if (holder === undefined) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return reply(
        res,
        401,
        'Unauthorized: send Authorization: Bearer <token> (BERRY_SERVE_TOKEN, a token of --token-file, or the token serve printed at start).',
      );
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if ('error' in read) return reply(res, read.status, read.error);
      body = read.value;
    }
    const request = toWebRequest(req, res);
    // The era is the request's own: a 2026 one carries the _meta envelope (or names 2026 in MCP-Protocol-Version).
    if (!(await isLegacyRequest(request, body))) {
      if (!holders.openStreams(holder, listens(body), res)) {
        const cap = holders.limits.maxHolderStreams;
        const message = `Too many listen streams for this token: it has ${cap} subscriptions/listen stream${cap === 1 ? '' : 's'} open (serve --max-holder-streams). Close one before opening another; one stream can carry every notification.`;
        return reply(res, 429, message, requestId(body), 'SERVE_STREAM_LIMIT');
      }
      return writeWebResponse(res, await modernOf(holder).fetch(request, { parsedBody: body }));
    }
    const answer = await sessions.handle(req, res, request, body, holder);
    if (answer instanceof Response) return writeWebResponse(res, answer);
    return reply(res, answer.status, answer.message, requestId(body), answer.code);
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
      await Promise.all([sessions.close(), ...[...modern.values()].map((handler) => handler.close())]);
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

/** A refusal as a JSON-RPC error, carrying the request's id when it had one, and our code when it is one of a cap. */
function reply(res: ServerResponse, status: number, message: string, id: string | number | null = null, code?: BerryErrorCode): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  const error = { code: status === 400 ? -32600 : -32000, message: code ? `${message} [${code}]` : message, ...(code ? { data: { code } } : {}) };
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id }));
}

/** Liveness for load balancers: no token, no body read, no detail (not even the version). */
function healthz(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : 'ok\n');
}

/** The subscriptions/listen requests in a body (a stream each). */
function listens(body: unknown): number {
  return (Array.isArray(body) ? body : [body]).filter(
    (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'subscriptions/listen',
  ).length;
}

function requestId(body: unknown): string | number | null {
  const id = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
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
