/**
 * Output types learned from results, per server (resolved-config fingerprint) and catalog: a tool
 * without an `outputSchema` gets the merged shape of the results it returned. Learning happens off
 * the call's path (after the result is handed back), and the saved file beside the catalog is
 * written at most once per FLUSH_DELAY_MS and on close, merged with what other processes wrote.
 * A changed catalog (its tools/list content) drops what was learned under the old one.
 */
import { createHash } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { CatalogStore } from '../catalog-store.js';
import type { ServerConnection } from '../../connection/connection.js';
import type { LogSink } from '../../log.js';
import { mergeObservations, observeResult, parseObserved, serializeObserved, sourceOf, type Observation, type ObservedTools } from './observation.js';

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
}

interface Learned {
  readonly connection: ServerConnection;
  readonly tool: Tool;
  readonly result: CallToolResult;
}

const catalogHashes = new WeakMap<readonly Tool[], string>();

/** The catalog's identity: its tools/list content (once per listing). */
export function catalogHash(tools: readonly Tool[]): string {
  let hash = catalogHashes.get(tools);
  if (hash === undefined) {
    hash = createHash('sha256').update(JSON.stringify(tools)).digest('hex');
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

  constructor(store: CatalogStore | undefined, log: LogSink) {
    this.#store = store;
    this.#log = log;
  }

  /** Notes a call's result: cheap and synchronous; the shape is taken on a later turn. */
  learn(connection: ServerConnection, tool: Tool, result: CallToolResult): void {
    // A result with no JSON value in it schedules nothing (a setImmediate is ≈ 1.4 µs of a warm call).
    if (tool.outputSchema !== undefined || sourceOf(result) === undefined) return;
    this.#queue.push({ connection, tool, result });
    this.#draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain());
  }

  /** What was learned for the tools of this connection's current catalog (the saved file read once); `server` names the entry. */
  async viewOf(connection: ServerConnection, server: string, signal?: AbortSignal): Promise<ObservedTools> {
    return this.view(connection.config.fingerprint, server, await connection.listTools(signal, server), signal);
  }

  async view(fingerprint: string, server: string, tools: readonly Tool[], signal?: AbortSignal): Promise<ObservedTools> {
    await this.#draining;
    const state = this.#state(fingerprint, server, catalogHash(tools));
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
        for (const { connection, tool, result } of queue) {
          // The catalog was listed again (or dropped) since the call: its result may not fit it.
          if (connection.catalog.toolNamed(tool.name) !== tool) continue;
          const observation = observeResult(result);
          if (observation === undefined) continue;
          const tools = await connection.listTools();
          const state = this.#state(connection.config.fingerprint, connection.config.name, catalogHash(tools));
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
      state = { server, catalog, base: new Map(), pending: new Map(), loaded: undefined };
      this.#states.set(fingerprint, state);
    }
    return state;
  }

  async #load(fingerprint: string, state: ServerState, signal: AbortSignal | undefined): Promise<void> {
    if (!this.#store) return;
    const saved = parseObserved(await this.#store.loadObserved(fingerprint, signal), state.catalog);
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
    this.#writing = this.#writing.then(async () => {
      for (const [fingerprint, state] of this.#states) {
        if (state.pending.size === 0) continue;
        const pending = state.pending;
        state.pending = new Map();
        const saved = this.#store ? parseObserved(await this.#store.loadObserved(fingerprint), state.catalog) : new Map(state.base);
        for (const [name, observation] of pending) saved.set(name, mergeObservations(saved.get(name), observation));
        state.base = saved;
        state.loaded = Promise.resolve();
        if (this.#store) await this.#store.saveObserved(fingerprint, serializeObserved(state.catalog, saved));
      }
    }).catch((error: unknown) => this.#warn('observed result types not written', error));
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
