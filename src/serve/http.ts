import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RunService } from './server.js';

export interface HttpServeOptions {
  /** `[HOST:]PORT`; the host defaults to 127.0.0.1. */
  readonly listen: { readonly host: string; readonly port: number };
  /** Required bearer token. */
  readonly token: string;
  /** Origins allowed besides loopback ones, e.g. `https://app.example.com`. */
  readonly allowOrigins?: readonly string[];
  /** A session with no open request or stream for this long is closed (a client that vanished). @default 1800000 */
  readonly sessionIdleMs?: number;
  /** Sessions at once; a new one evicts the least recently seen session with no run executing or queued, else gets 503. @default 16 */
  readonly maxSessions?: number;
}

/** One client's session: its transport and server, and its open requests (streams included) to tell idle from busy. */
interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  open: number;
  lastSeen: number;
}

export interface HttpServing {
  readonly url: string;
  close(): Promise<void>;
}

/** Largest request body accepted (a script and its JSON-RPC envelope). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Parses `--http [HOST:]PORT` (`[v6]:PORT` for IPv6); throws a message naming the expected form. */
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

/** Serves `service` over Streamable HTTP at /mcp: one session per client, every request authenticated. */
export async function serveHttp(service: RunService, options: HttpServeOptions): Promise<HttpServing> {
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 16;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new TypeError(`maxSessions must be a positive integer, got ${maxSessions}`);
  /** Initializes under way: each will be a session, so each counts against maxSessions. */
  let opening = 0;
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
    const sessionId = req.headers['mcp-session-id'];
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if ('error' in read) return reply(res, read.status, read.error);
      body = read.value;
    }
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId)?.transport : undefined;
    if (!transport) {
      if (sessionId !== undefined) return reply(res, 404, 'Session not found: initialize a new session.');
      if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, 'Bad request: no session; start with initialize.');
      if (sessions.size + opening >= maxSessions && !evictIdle()) {
        return reply(res, 503, `Too many sessions: all ${maxSessions} have runs executing or queued (serve --max-sessions). Retry later, or end a session (DELETE).`);
      }
      // Counted until its initialize made the session (or failed to), so concurrent ones cannot pass the cap.
      opening++;
      try {
        transport = await open();
        await transport.handleRequest(req, res, body);
      } finally {
        opening--;
      }
      // An initialize the transport refused (bad headers, bad version) made no session: drop its server.
      if (transport.sessionId === undefined) await transport.close();
      return;
    }
    cancelOnDisconnect(req, res, transport, body);
    track(transport, res);
    await transport.handleRequest(req, res, body);
  };

  const open = async (): Promise<StreamableHTTPServerTransport> => {
    let server: Server | undefined;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server: server!, open: 0, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    server = await service.connect(transport);
    return transport;
  };

  /** Closes the least recently seen session with no run executing or queued; false when every one is busy. */
  const evictIdle = (): boolean => {
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      if (service.busy(entry[1].server)) continue;
      if (!oldest || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
    }
    if (!oldest) return false;
    sessions.delete(oldest[0]);
    void oldest[1].transport.close().catch(() => {});
    return true;
  };

  /** Counts the response as open until it ends (an SSE stream stays open while the client listens). */
  const track = (transport: StreamableHTTPServerTransport, res: ServerResponse): void => {
    // initialize has no session yet: the session starts idle, seen now (onsessioninitialized).
    const session = transport.sessionId === undefined ? undefined : sessions.get(transport.sessionId);
    if (!session) return;
    session.open++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (session.open <= 0 && now - session.lastSeen > idleMs) {
        sessions.delete(id);
        void session.transport.close().catch(() => {});
      }
    }
  }, Math.min(60_000, Math.max(100, idleMs / 4)));
  sweep.unref();

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
    close: () => {
      clearInterval(sweep);
      return closeAll(server, sessions);
    },
  };
}

/**
 * A client that drops a POST's response stream while its requests run has gone: cancel those
 * requests as if it had sent notifications/cancelled, so their runs (and inner calls) stop.
 */
function cancelOnDisconnect(req: IncomingMessage, res: ServerResponse, transport: StreamableHTTPServerTransport, body: unknown): void {
  if (req.method !== 'POST') return;
  const ids = (Array.isArray(body) ? body : [body])
    .filter((m): m is { id: string | number; method: string } => typeof m === 'object' && m !== null && 'method' in m && 'id' in m)
    .map((m) => m.id);
  if (ids.length === 0) return;
  res.once('close', () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      const cancel: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'client disconnected' } };
      try {
        transport.onmessage?.(cancel);
      } catch {
        // The session is already gone: nothing left to cancel.
      }
    }
  });
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

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: status === 400 ? -32600 : -32000, message }, id: null }));
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

async function closeAll(server: HttpServer, sessions: Map<string, Session>): Promise<void> {
  await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => {})));
  sessions.clear();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
