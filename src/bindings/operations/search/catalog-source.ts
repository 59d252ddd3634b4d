/**
 * Where a search takes one server's tools from, as `mcp_list` would: the live catalog of an open
 * connection; else a saved catalog (no server started for it, a stale one refreshed in the
 * background); else the server, started and listed. A start failure that is backing off answers
 * from a saved catalog if there is one. What is found goes into the index (tool-index.ts), which
 * does nothing when it already holds that very listing.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { ResolvedServerConfig } from '../../../config/index.js';
import type { ServerTextGate } from '../../server-text/gate.js';
import type { OperationContext, Prepared } from '../context.js';
import { catalogOf, saveListing } from '../list.js';
import type { ToolIndex } from './tool-index.js';

/** A saved catalog as last read, so a warm search reads no file while it is fresh. */
interface SavedRead {
  readonly fingerprint: string;
  readonly savedAt: number;
  readonly staleAt: number;
  readonly tools: readonly Tool[];
}

/** What a host keeps between searches. */
export interface SearchState {
  readonly index: ToolIndex;
  /** Server name → its saved catalog as last read. */
  readonly saved: Map<string, SavedRead>;
}

/** One configured server that may be searched: its entry as this operation read it. */
export interface SearchedServer {
  readonly name: string;
  readonly config: ResolvedServerConfig;
}

/**
 * Puts `server`'s tools in the index. True when they are there for this search; false when the
 * server has none to give now (it failed: searching every server skips it). With `named` (the
 * search asked for this server) its failure is thrown instead.
 */
export async function indexServer(
  context: OperationContext,
  prepared: Prepared,
  server: SearchedServer,
  state: SearchState,
  gate: ServerTextGate,
  signal: AbortSignal | undefined,
  named: boolean,
): Promise<boolean> {
  const { name, config } = server;
  const failed = context.pendingFailure(prepared, config);
  if (failed) {
    const saved = await savedRead(context, server, state, signal);
    if (saved) return sync(state, name, saved.tools, gate, config, named);
    if (named) throw failed;
    return false;
  }
  // A start failure whose window is over is due its one attempt, not a saved catalog that says all is well.
  const key = context.keyOf(prepared, config);
  if (!context.backoff.recorded(key) && !context.pool.isOpen(key)) {
    const saved = await savedRead(context, server, state, signal);
    if (saved) {
      if (Date.now() > saved.staleAt) refreshInBackground(context, prepared, server, state);
      return sync(state, name, saved.tools, gate, config, named);
    }
  }
  try {
    await context.use(
      prepared,
      config,
      async (connection) => {
        const listing = await connection.catalog.list('tools', signal, name);
        // Only a listing not seen before is saved: a warm search writes nothing.
        if (state.index.sync(name, listing.items, gate.value, config.toolFilter)) saveListing(context, name, config, listing, connection.protocolVersion);
      },
      signal,
    );
    return true;
  } catch (error) {
    if (named || signal?.aborted) throw gate.error(error, name);
    return false;
  }
}

function sync(state: SearchState, name: string, tools: readonly Tool[], gate: ServerTextGate, config: ResolvedServerConfig, named: boolean): boolean {
  try {
    state.index.sync(name, tools, gate.value, config.toolFilter);
    return true;
  } catch (error) {
    // A saved catalog the gate cannot check (nested too deep) is not searched.
    if (named) throw error;
    return false;
  }
}

/** The saved catalog of `server` (any age), from memory while the one read last is fresh. */
async function savedRead(
  context: OperationContext,
  server: SearchedServer,
  state: SearchState,
  signal: AbortSignal | undefined,
): Promise<SavedRead | undefined> {
  const store = context.store;
  if (!store) return undefined;
  const { fingerprint, publicFingerprint } = server.config;
  const last = state.saved.get(server.name);
  if (last?.fingerprint === fingerprint && Date.now() <= last.staleAt) return last;
  const saved = await store.load(fingerprint, signal, publicFingerprint);
  if (!saved) {
    state.saved.delete(server.name);
    return undefined;
  }
  // The same file again keeps its tools' identity: the index is not rebuilt.
  const read =
    last?.fingerprint === fingerprint && last.savedAt === saved.savedAt
      ? last
      : { fingerprint, savedAt: saved.savedAt, staleAt: saved.savedAt + saved.ttlMs, tools: saved.tools };
  state.saved.set(server.name, read);
  return read;
}

/** As list does for a stale saved catalog: list the server anew in the background (which saves it again). */
function refreshInBackground(context: OperationContext, prepared: Prepared, server: SearchedServer, state: SearchState): void {
  const slot = { name: server.name, status: 'ok' as const, config: server.config };
  context.track(
    context.operation(undefined, async () => {
      await catalogOf(context, prepared, slot, undefined);
      // Read the file again next time: the refresh wrote a fresh one.
      state.saved.delete(server.name);
    }),
  );
}
