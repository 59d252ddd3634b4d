import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport, type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';
import type { RunService } from './server.js';

/** One 2025 client's session: its transport and server, and its open requests (streams included) to tell idle from busy. */
interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  open: number;
  lastSeen: number;
}

export interface LegacySessionOptions {
  readonly idleMs: number;
  readonly maxSessions: number;
}

/** An answer that is not the transport's: status and message (the caller frames it as JSON-RPC). */
export interface Refusal {
  readonly status: number;
  readonly message: string;
}

/**
 * The 2025-11-25 Streamable HTTP sessions: one per client (`Mcp-Session-Id`), at most
 * `maxSessions`, closed after `idleMs` without a request or stream open.
 */
export class LegacySessions {
  readonly #service: RunService;
  readonly #options: LegacySessionOptions;
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;
  /** Initializes under way: each will be a session, so each counts against maxSessions. */
  #opening = 0;

  constructor(service: RunService, options: LegacySessionOptions) {
    if (!Number.isInteger(options.maxSessions) || options.maxSessions < 1) {
      throw new TypeError(`maxSessions must be a positive integer, got ${options.maxSessions}`);
    }
    this.#service = service;
    this.#options = options;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(60_000, Math.max(100, options.idleMs / 4)));
    this.#sweep.unref();
  }

  /** Serves a 2025-era request: the transport's answer, or a refusal for the caller to send. */
  async handle(req: IncomingMessage, res: ServerResponse, request: Request, body: unknown): Promise<Response | Refusal> {
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
    if (!session) {
      if (sessionId !== undefined) return { status: 404, message: 'Session not found: initialize a new session.' };
      if (req.method !== 'POST' || !isInitializeRequest(body)) return { status: 400, message: 'Bad request: no session; start with initialize.' };
      if (this.#sessions.size + this.#opening >= this.#options.maxSessions && !this.#evictIdle()) {
        return {
          status: 503,
          message: `Too many sessions: all ${this.#options.maxSessions} have runs executing or queued (serve --max-sessions). Retry later, or end a session (DELETE).`,
        };
      }
      // Counted until its initialize made the session (or failed to), so concurrent ones cannot pass the cap.
      this.#opening++;
      try {
        const transport = await this.#open();
        const response = await transport.handleRequest(request, { parsedBody: body });
        // An initialize the transport refused (bad headers, bad version) made no session: drop its server.
        if (transport.sessionId === undefined) await transport.close();
        return response;
      } finally {
        this.#opening--;
      }
    }
    cancelOnDisconnect(req, res, session.transport, body);
    this.#track(session, res);
    return session.transport.handleRequest(request, { parsedBody: body });
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#sessions.values()].map((s) => s.transport.close().catch(() => {})));
    this.#sessions.clear();
  }

  async #open(): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = this.#service.legacyServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, server, open: 0, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    await server.connect(transport);
    const closed = transport.onclose;
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
      closed?.();
    };
    return transport;
  }

  /** Closes the least recently seen session with no run executing or queued; false when every one is busy. */
  #evictIdle(): boolean {
    let oldest: [string, Session] | undefined;
    for (const entry of this.#sessions) {
      if (this.#service.busy(entry[1].server)) continue;
      if (!oldest || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
    }
    if (!oldest) return false;
    this.#sessions.delete(oldest[0]);
    void oldest[1].transport.close().catch(() => {});
    return true;
  }

  /** Counts the response as open until it ends (an SSE stream stays open while the client listens). */
  #track(session: Session, res: ServerResponse): void {
    session.open++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  }

  #closeIdle(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      if (session.open <= 0 && now - session.lastSeen > this.#options.idleMs) {
        this.#sessions.delete(id);
        void session.transport.close().catch(() => {});
      }
    }
  }
}

/**
 * A client that drops a POST's response stream while its requests run has gone: cancel those
 * requests as if it had sent notifications/cancelled, so their runs (and inner calls) stop.
 */
function cancelOnDisconnect(req: IncomingMessage, res: ServerResponse, transport: WebStandardStreamableHTTPServerTransport, body: unknown): void {
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
