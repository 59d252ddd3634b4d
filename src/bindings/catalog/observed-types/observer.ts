/**
 * Output types learned from results, per server (resolved-config fingerprint) and catalog: a tool
 * without an `outputSchema` gets the merged shape of the results it returned. Learning happens off
 * the call's path (after the result is handed back), and the saved file beside the catalog is
 * written at most once per FLUSH_DELAY_MS and on close, merged with what other processes wrote.
 * A changed catalog (its tools/list content) drops what was learned under the old one.
 *
 * Only masked keys are learned (a key holding a secret turns its object into a map), and each
 * client learns for itself (`for`): a model never reads a type that another client's call taught.
 * The host's own learning (the library's, the CLI's) is the only one saved; a client's lives in
 * memory while the client does.
 */
import { nodeCrypto } from '../../../common/lazy-node.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { CatalogStore } from '../catalog-store.js';
import type { ServerConnection } from '../../connection/connection.js';
import type { LogSink } from '../../log.js';
import {
  mergeObservations,
  observeResult,
  parseObserved,
  serializeObserved,
  sourceOf,
  type KeyMask,
  type Observation,
  type ObservedTools,
} from './observation.js';

/** Observations are written at most this often (and when the host closes). */
export const FLUSH_DELAY_MS = 2000;

interface ServerState {
  readonly server: string;
  /** Hash of the tools/list content the observations belong to. */
  readonly catalog: string;
  /** What the saved file held when last read or written (with this process's earlier learning). */
  base: Map<string, Observation>;
  /** Learned since the last write. */
  pending: Map<string, Observation>;
  loaded: Promise<void> | undefined;
  /** The mask of the config that last learned or viewed these types: what the saved file is read through. */
  mask: KeyMask;
}

/** Masks a key; the gate of the call's config (server-text/gate.ts). */
export interface KeyGate {
  whole(text: string): string;
}

interface Learned {
  readonly connection: ServerConnection;
  readonly tool: Tool;
  readonly result: CallToolResult;
  readonly gate: KeyGate;
}

const keepKey: KeyMask = (key) => key;

const catalogHashes = new WeakMap<readonly Tool[], string>();

/** The catalog's identity: its tools/list content (once per listing). */
export function catalogHash(tools: readonly Tool[]): string {
  let hash = catalogHashes.get(tools);
  if (hash === undefined) {
    hash = nodeCrypto().createHash('sha256').update(JSON.stringify(tools)).digest('hex');
    catalogHashes.set(tools, hash);
  }
  return hash;
}

export class ObservedTypes {
  readonly #store: CatalogStore | undefined;
  readonly #log: LogSink;
  readonly #states = new Map<string, ServerState>();
  #queue: Learned[] = [];
  #draining: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #warned = false;
  /** Each client's own learning, for as long as the client object lives. */
  readonly #clients = new WeakMap<object, ObservedTypes>();

  constructor(store: CatalogStore | undefined, log: LogSink) {
    this.#store = store;
    this.#log = log;
  }

  /** The learning of `client` (an opaque object, e.g. a serve session), in memory; undefined: the host's own, saved. */
  for(client: object | undefined): ObservedTypes {
    if (client === undefined) return this;
    let scoped = this.#clients.get(client);
    if (scoped === undefined) this.#clients.set(client, (scoped = new ObservedTypes(undefined, this.#log)));
    return scoped;
  }

  /** Notes a call's result, to be learned through `gate`: cheap and synchronous; the shape is taken on a later turn. */
  learn(connection: ServerConnection, tool: Tool, result: CallToolResult, gate: KeyGate): void {
    // A result with no JSON value in it schedules nothing (a setImmediate is ≈ 1.4 µs of a warm call).
    if (tool.outputSchema !== undefined || sourceOf(result) === undefined) return;
    this.#queue.push({ connection, tool, result, gate });
    this.#draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain());
  }

  /** What was learned for the tools of this connection's current catalog (the saved file read once); `server` names the entry. */
  async viewOf(connection: ServerConnection, server: string, gate: KeyGate, signal?: AbortSignal): Promise<ObservedTools> {
    return this.view(connection.config.fingerprint, server, await connection.listTools(signal, server), gate, signal);
  }

  async view(fingerprint: string, server: string, tools: readonly Tool[], gate: KeyGate, signal?: AbortSignal): Promise<ObservedTools> {
    await this.#draining;
    const state = this.#state(fingerprint, server, catalogHash(tools));
    state.mask = (key) => gate.whole(key);
    state.loaded ??= this.#load(fingerprint, state, signal);
    await state.loaded;
    const merged = new Map(state.base);
    for (const [name, observation] of state.pending) merged.set(name, mergeObservations(merged.get(name), observation));
    return merged;
  }

  /** Learns what is queued and writes what is pending now; the host's close() calls it. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#draining) await this.#draining;
    await this.#flush();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const queue = this.#queue;
        this.#queue = [];
        for (const { connection, tool, result, gate } of queue) {
          // The catalog was listed again (or dropped) since the call: its result may not fit it.
          if (connection.catalog.toolNamed(tool.name) !== tool) continue;
          // A tool whose very name holds a secret is not learned: its name would be kept.
          const mask: KeyMask = (key) => gate.whole(key);
          if (mask(tool.name) !== tool.name) continue;
          const observation = observeResult(result, mask);
          if (observation === undefined) continue;
          const tools = await connection.listTools();
          const state = this.#state(connection.config.fingerprint, connection.config.name, catalogHash(tools));
          state.mask = mask;
          state.pending.set(tool.name, mergeObservations(state.pending.get(tool.name), observation));
          this.#schedule();
        }
      }
    } catch (error) {
      this.#warn('learning a result type failed', error);
    } finally {
      this.#draining = undefined;
    }
  }

  #state(fingerprint: string, server: string, catalog: string): ServerState {
    let state = this.#states.get(fingerprint);
    if (state?.catalog !== catalog) {
      state = { server, catalog, base: new Map(), pending: new Map(), loaded: undefined, mask: keepKey };
      this.#states.set(fingerprint, state);
    }
    return state;
  }

  async #load(fingerprint: string, state: ServerState, signal: AbortSignal | undefined): Promise<void> {
    if (!this.#store) return;
    const saved = parseObserved(await this.#store.loadObserved(fingerprint, signal), state.catalog, state.mask);
    for (const [name, observation] of state.base) saved.set(name, mergeObservations(saved.get(name), observation));
    state.base = saved;
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#flush();
    }, FLUSH_DELAY_MS);
    this.#timer.unref();
  }

  /** One write at a time; each reads the file first, so another process's learning is kept. */
  #flush(): Promise<void> {
    this.#writing = this.#writing
      .then(async () => {
        for (const [fingerprint, state] of this.#states) {
          if (state.pending.size === 0) continue;
          const pending = state.pending;
          state.pending = new Map();
          const saved = this.#store ? parseObserved(await this.#store.loadObserved(fingerprint), state.catalog, state.mask) : new Map(state.base);
          for (const [name, observation] of pending) saved.set(name, mergeObservations(saved.get(name), observation));
          state.base = saved;
          state.loaded = Promise.resolve();
          if (this.#store) await this.#store.saveObserved(fingerprint, serializeObserved(state.catalog, saved));
        }
      })
      .catch((error: unknown) => this.#warn('observed result types not written', error));
    return this.#writing;
  }

  /** A cache that cannot be kept costs only what a model learns: said once, on the log. */
  #warn(what: string, error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    const server = [...this.#states.values()][0]?.server ?? 'berry-mcp';
    this.#log({ server, kind: 'error', message: `${what}: ${error instanceof Error ? error.message : String(error)}` });
  }
}
