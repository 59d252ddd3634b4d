/**
 * Which caller each request in flight on one connection belongs to, so that a server's
 * `elicitation/create` reaches only the caller whose call caused it. A connection is shared by
 * many callers (served runs of different clients): its elicitations are attributed, never guessed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { isJsonRpcId as isId, type JsonRpcId as Id } from '../../transport/http/resumable-stream.js';
import type { ElicitationHandler } from '../handlers.js';

/** A request sent without a per-call handler belongs to the host (its `onElicitation`). */
const HOST = Symbol('host');
/** The owner of a related request that is no longer in flight: unknown, so nobody answers. */
const ENDED = Symbol('ended');
type Owner = ElicitationHandler | typeof HOST | typeof ENDED;

/** What answers one elicitation: a handler (undefined: none), or nobody because it cannot be attributed. */
export type ElicitationOwner = { readonly handler: ElicitationHandler | undefined } | 'unattributed';

export class RequestOwners {
  readonly #host: ElicitationHandler | undefined;
  /** Our requests in flight, by the JSON key of their id. */
  readonly #inFlight = new Map<string, Owner>();
  /** Server requests that arrived on one of our requests' response streams (HTTP), being answered. */
  readonly #related = new Map<string, string[]>();
  /** The owner of the call running now: the SDK sends a request some awaits after it was asked for. */
  readonly #sending = new AsyncLocalStorage<Owner>();

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
      if (m.method === undefined && isId(m.id)) this.#inFlight.delete(key(m.id));
    };
  }

  /** Runs `request`, whose requests (sent now or after awaits) are owned by `handler`. */
  as<T>(handler: ElicitationHandler | undefined, request: () => T): T {
    if (!handler) return request();
    return this.#sending.run(handler, request);
  }

  /** A server request came on the response stream of our requests `related` (Streamable HTTP). */
  relate(serverRequestId: Id, related: readonly Id[]): void {
    this.#related.set(key(serverRequestId), related.map(key));
  }

  /**
   * Who answers server request `id`: the owner of the request it came with; else, when every
   * request in flight has one owner, that owner; else nobody.
   */
  ownerOf(serverRequestId: Id): ElicitationOwner {
    const related = this.#related.get(key(serverRequestId));
    const owners = new Set<Owner>();
    // A request that came with one of ours belongs to its owner only, even once that one has ended.
    if (related) for (const id of related) owners.add(this.#inFlight.get(id) ?? ENDED);
    else for (const owner of this.#inFlight.values()) owners.add(owner);
    const [owner, other] = owners;
    if (other !== undefined || owner === ENDED) return 'unattributed';
    return { handler: owner === undefined || owner === HOST ? this.#host : owner };
  }

  #outgoing(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    // The era probe's answer is read by the SDK before the client sees messages: never in flight.
    if (m.method === 'server/discover') return;
    // A request sent again (the HTTP transport resends after a sign-in) keeps its owner.
    if (typeof m.method === 'string' && isId(m.id)) {
      if (!this.#inFlight.has(key(m.id))) this.#inFlight.set(key(m.id), this.#sending.getStore() ?? HOST);
    } else if (m.method === 'notifications/cancelled' && isId(m.params?.requestId)) {
      this.#inFlight.delete(key(m.params.requestId));
    } else if (m.method === undefined && isId(m.id)) {
      // Our answer to a server request: its relation is no longer needed.
      this.#related.delete(key(m.id));
    }
  }
}

function key(id: Id): string {
  return JSON.stringify(id);
}
