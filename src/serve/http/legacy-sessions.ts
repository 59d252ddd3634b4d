import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport, type JSONRPCMessage, type Server } from '@modelcontextprotocol/server';
import type { BerryErrorCode } from '../../common/errors.js';
import type { Holder, Holders } from './holders.js';
import type { RunClient } from '../queue.js';
import type { RunService } from '../server.js';

/** One 2025 client's session: its transport and server, its holder, and its open requests (streams included) to tell idle from busy. */
interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  readonly holder: Holder;
  readonly client: RunClient;
  open: number;
  lastSeen: number;
}

export interface LegacySessionOptions {
  readonly idleMs: number;
  readonly holders: Holders;
}

/** An answer that is not the transport's: status and message (the caller frames it as JSON-RPC). */
export interface Refusal {
  readonly status: number;
  readonly message: string;
  readonly code?: BerryErrorCode;
}

/**
 * The 2025-11-25 Streamable HTTP sessions: one per client (`Mcp-Session-Id`), each its token
 * holder's, at most `maxSessions` in all and `maxHolderSessions` of one holder, closed after
 * `idleMs` without a request or stream open. A new session past a cap takes the place of an idle
 * one: the holder's own when the holder is at its cap, else the least recently seen of the holder
 * that has the most. So a new session is refused only when its own holder is at its cap with every
 * session busy, or when every session of the server is busy: one holder never locks another out.
 */
export class LegacySessions {
  readonly #service: RunService;
  readonly #options: LegacySessionOptions;
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;
  /** Initializes under way, by holder: each will be a session, so each counts against the caps. */
  readonly #opening = new Map<Holder, number>();

  constructor(service: RunService, options: LegacySessionOptions) {
    this.#service = service;
    this.#options = options;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(60_000, Math.max(100, options.idleMs / 4)));
    this.#sweep.unref();
  }

  /** Serves a 2025-era request of `holder`: the transport's answer, or a refusal for the caller to send. */
  async handle(req: IncomingMessage, res: ServerResponse, request: Request, body: unknown, holder: Holder): Promise<Response | Refusal> {
    const sessionId = req.headers['mcp-session-id'];
    const found = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
    // Another holder's session id is no session of this one's (it could cancel or answer for it).
    const session = found?.holder === holder ? found : undefined;
    if (!session) {
      if (sessionId !== undefined) return { status: 404, message: 'Session not found: initialize a new session.' };
      if (req.method !== 'POST' || !isInitializeRequest(body)) return { status: 400, message: 'Bad request: no session; start with initialize.' };
      const refusal = this.#makeRoom(holder);
      if (refusal) return refusal;
      // Counted until its initialize made the session (or failed to), so concurrent ones cannot pass the caps.
      this.#opening.set(holder, (this.#opening.get(holder) ?? 0) + 1);
      try {
        const transport = await this.#open(holder);
        const response = await transport.handleRequest(request, { parsedBody: body });
        // An initialize the transport refused (bad headers, bad version) made no session: drop its server.
        if (transport.sessionId === undefined) await transport.close();
        return response;
      } finally {
        const left = this.#opening.get(holder)! - 1;
        if (left === 0) this.#opening.delete(holder);
        else this.#opening.set(holder, left);
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

  async #open(holder: Holder): Promise<WebStandardStreamableHTTPServerTransport> {
    const client = this.#options.holders.client(holder.run);
    const server = this.#service.legacyServer(client);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, server, holder, client, open: 0, lastSeen: Date.now() });
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

  /** Room for one more session of `holder`, an idle session closed if need be; a refusal when there is none. */
  #makeRoom(holder: Holder): Refusal | undefined {
    const { maxSessions, maxHolderSessions } = this.#options.holders.limits;
    const held = new Map<Holder, number>(this.#opening);
    for (const session of this.#sessions.values()) held.set(session.holder, (held.get(session.holder) ?? 0) + 1);
    // A holder's cap as high as the server's (one token, by default) is the server's, refused as such below.
    if (maxHolderSessions < maxSessions && (held.get(holder) ?? 0) >= maxHolderSessions) {
      if (this.#evictIdle(held, holder)) return undefined;
      return {
        status: 429,
        code: 'SERVE_SESSION_LIMIT',
        message:
          `Too many sessions for this token: its ${maxHolderSessions} all have runs executing or queued (serve --max-holder-sessions). ` +
          'Retry when one of their runs ends, or end a session of this token (DELETE).',
      };
    }
    let total = 0;
    for (const n of held.values()) total += n;
    if (total < maxSessions || this.#evictIdle(held)) return undefined;
    return {
      status: 503,
      code: 'SERVE_SESSION_LIMIT',
      message: `Too many sessions: all ${maxSessions} have runs executing or queued (serve --max-sessions). Retry later, when one of their runs ends.`,
    };
  }

  /**
   * Closes an idle session (no run executing or queued): of `only` when given, else of the holder
   * holding the most sessions; the least recently seen of those. False when every one is busy.
   */
  #evictIdle(held: ReadonlyMap<Holder, number>, only?: Holder): boolean {
    let chosen: [string, Session] | undefined;
    for (const entry of this.#sessions) {
      const [, session] = entry;
      if ((only !== undefined && session.holder !== only) || this.#service.busy(session.client)) continue;
      const more = chosen === undefined ? 1 : (held.get(session.holder) ?? 0) - (held.get(chosen[1].holder) ?? 0);
      if (more > 0 || (more === 0 && session.lastSeen < chosen![1].lastSeen)) chosen = entry;
    }
    if (!chosen) return false;
    this.#sessions.delete(chosen[0]);
    void chosen[1].transport.close().catch(() => {});
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
