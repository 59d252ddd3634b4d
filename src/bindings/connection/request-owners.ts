/**
 * Which caller each request in flight on one connection belongs to, so that a server's
 * `elicitation/create` reaches only the caller whose call caused it. A connection is shared by
 * many callers (served runs of different clients): its elicitations are attributed, never guessed.
 */
import type { Transport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { isJsonRpcId as isId, type JsonRpcId as Id } from '../../remote/transport/http/resumable-stream.js';
import type { ElicitationHandler } from '../handlers.js';

/** A request sent without a per-call handler belongs to the host (its `onElicitation`). */
const HOST = Symbol('host');
/**
 * Where a request's params carry their owner to the transport: a symbol key, which the SDK's spread
 * of params keeps and JSON never sends. (An AsyncLocalStorage would do it too, but on Node 20 and
 * 22 the first one makes every promise of the process about 3× slower.)
 */
const OWNER = Symbol('berry-mcp request owner');
/** The owner of a related request that is no longer in flight: unknown, so nobody answers. */
const ENDED = Symbol('ended');
type Owner = ElicitationHandler | typeof HOST | typeof ENDED;

/** What answers one elicitation: a handler (undefined: none), or nobody because it cannot be attributed. */
export type ElicitationOwner = { readonly handler: ElicitationHandler | undefined } | 'unattributed';

export class RequestOwners {
  readonly #host: ElicitationHandler | undefined;
  /** Our requests in flight, by id (a Map tells the number 1 from the string "1", as JSON-RPC does). */
  readonly #inFlight = new Map<Id, Owner>();
  /** Server requests that arrived on one of our requests' response streams (HTTP), being answered. */
  readonly #related = new Map<Id, readonly Id[]>();

  constructor(host: ElicitationHandler | undefined) {
    this.#host = host;
  }

  /** The embedder's handler: answers what no call of a caller with its own handler caused. */
  hostHandler(): ElicitationHandler | undefined {
    return this.#host;
  }

  /**
   * Sees every message the transport sends and receives. Installed before the SDK client connects:
   * the client chains the `onmessage` it finds, so this one sees each message first.
   */
  track(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      this.#outgoing(message);
      return send(message, options);
    };
    transport.onmessage = (message) => {
      const m = message as { id?: unknown; method?: unknown };
      if (m.method === undefined && isId(m.id)) this.answered(m.id);
    };
  }

  /** Our request `id` got its answer (or was given up): it is no longer in flight. */
  answered(id: Id): void {
    this.#inFlight.delete(id);
  }

  /** What to spread into a request's params so that `handler` owns it (nothing: the host does). */
  static tag(handler: ElicitationHandler | undefined): Readonly<Record<symbol, ElicitationHandler>> {
    return handler ? { [OWNER]: handler } : NO_TAG;
  }

  /** `tag`, set on params built here rather than spread (a spread with a symbol key is a slow copy on Node 20). */
  static own(params: Record<string | symbol, unknown>, handler: ElicitationHandler | undefined): void {
    if (handler) params[OWNER] = handler;
  }

  /** A server request came on the response stream of our requests `related` (Streamable HTTP). */
  relate(serverRequestId: Id, related: readonly Id[]): void {
    this.#related.set(serverRequestId, [...related]);
  }

  /**
   * Who answers server request `id`: the owner of the request it came with; else, when every
   * request in flight has one owner, that owner; else nobody.
   */
  ownerOf(serverRequestId: Id): ElicitationOwner {
    const related = this.#related.get(serverRequestId);
    const owners = new Set<Owner>();
    // A request that came with one of ours belongs to its owner only, even once that one has ended.
    if (related) for (const id of related) owners.add(this.#inFlight.get(id) ?? ENDED);
    else for (const owner of this.#inFlight.values()) owners.add(owner);
    const [owner, other] = owners;
    if (other !== undefined || owner === ENDED) return 'unattributed';
    return { handler: owner === undefined || owner === HOST ? this.#host : owner };
  }

  #outgoing(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown; [OWNER]?: ElicitationHandler } };
    // The era probe's answer is read by the SDK before the client sees messages: never in flight.
    if (m.method === 'server/discover') return;
    // A request sent again (the HTTP transport resends after a sign-in) keeps its owner.
    if (typeof m.method === 'string' && isId(m.id)) {
      if (!this.#inFlight.has(m.id)) this.#inFlight.set(m.id, m.params?.[OWNER] ?? HOST);
    } else if (m.method === 'notifications/cancelled' && isId(m.params?.requestId)) {
      this.#inFlight.delete(m.params.requestId);
    } else if (m.method === undefined && isId(m.id)) {
      // Our answer to a server request: its relation is no longer needed.
      this.#related.delete(m.id);
    }
  }
}

const NO_TAG: Readonly<Record<symbol, ElicitationHandler>> = Object.freeze({});
