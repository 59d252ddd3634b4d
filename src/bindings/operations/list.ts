import { valueRedactorOf, type ResolvedServerConfig, type ServerSlot, type ToolFilter } from '../../config/index.js';
import type { Tool } from '@modelcontextprotocol/client';
import { BerryError, isBerryError, type BerryErrorCode } from '../../common/errors.js';
import { connectedStatus, failedStatus, sandboxNotes } from '../catalog/server-status.js';
import type { ListRequest, ListResult, OperationOptions, ServerStatus } from '../contract.js';
import type { OperationContext, Prepared } from './context.js';
import { validateListRequest } from './arguments/validate-request.js';

/** A server's status with its full tool list: what list summarizes and typings compiles. */
export type Catalog =
  | {
      readonly status: 'connected';
      readonly transport: 'stdio' | 'http';
      /** The negotiated revision (live), or the one saved with the catalog. */
      readonly protocol: string | undefined;
      /** Tools left out (invalid x-mcp-header annotations). */
      readonly warnings: readonly string[];
      /** The whole list, before the entry's filter. */
      readonly tools: Tool[];
      readonly filter: ToolFilter | undefined;
    }
  | { readonly status: 'disabled'; readonly transport: 'stdio' | 'http' }
  | { readonly status: 'error'; readonly error: { readonly code: BerryErrorCode; readonly message: string } }
  | { readonly status: 'auth_required'; readonly transport: 'http'; readonly error: { readonly code: BerryErrorCode; readonly message: string } };

/** `mcp_list`: every configured server (or one) with its tools, or why it has none. */
export function list(context: OperationContext, request: ListRequest, options: OperationOptions): Promise<ListResult> {
  const { server, refresh } = validateListRequest(request);
  const { signal } = options;
  return context.operation(signal, async () => {
    const prepared = await context.prepare(signal);
    if (server !== undefined && !prepared.loaded.servers.some((s) => s.name === server)) {
      context.resolve(prepared, server);
    }
    const slots = prepared.loaded.servers.filter((s) => server === undefined || s.name === server);
    const servers = await Promise.all(slots.map((slot) => status(context, prepared, slot, refresh === true, signal)));
    return { configPath: prepared.loaded.path, servers };
  });
}

/** One server's tool catalog, or why it has none: never throws for a broken server. */
export async function catalogOf(
  context: OperationContext,
  prepared: Prepared,
  slot: ServerSlot,
  signal: AbortSignal | undefined,
  force = false,
): Promise<Catalog> {
  if (slot.status === 'disabled') return { status: 'disabled', transport: slot.transport };
  if (slot.status === 'error') return { status: 'error', error: { code: slot.error.code, message: slot.error.message } };
  try {
    let protocol: string | undefined;
    const listing = await context.use(
      prepared,
      slot.config,
      (c) => ((protocol = c.protocolVersion), c.catalog.list('tools', signal, slot.name)),
      signal,
      force,
    );
    const all = listing.items;
    saveListing(context, slot.name, slot.config, listing, protocol);
    return { status: 'connected', transport: slot.config.kind, protocol, warnings: listing.warnings ?? [], tools: all, filter: slot.config.toolFilter };
  } catch (error) {
    if (signal?.aborted) throw error;
    const berry = isBerryError(error) ? error : new BerryError('MCP_CONNECT_FAILED', String(error));
    if (berry.code === 'MCP_AUTH_REQUIRED' && slot.config.kind === 'http') {
      return { status: 'auth_required', transport: 'http', error: { code: berry.code, message: berry.message } };
    }
    return { status: 'error', error: { code: berry.code, message: berry.message } };
  }
}

/** Saves a live tool listing on the machine (savedCatalogs), in the background, unless it was just saved. */
export function saveListing(
  context: OperationContext,
  name: string,
  config: ResolvedServerConfig,
  listing: { readonly items: readonly Tool[]; readonly ttlMs?: number | undefined; readonly cacheScope?: 'public' | 'private' | undefined },
  protocol: string | undefined,
): void {
  const saving = context.store?.saveListing(config.fingerprint, listing.items, {
    ttlMs: listing.ttlMs,
    protocol,
    cacheScope: listing.cacheScope,
    publicFingerprint: config.publicFingerprint,
  });
  if (!saving) return;
  // A cache that cannot be written costs only speed: say so on the log, nothing else.
  context.track(
    saving.catch((error: unknown) =>
      context.log({ server: name, kind: 'error', message: `saved catalog not written: ${error instanceof Error ? error.message : String(error)}` }),
    ),
  );
}

/**
 * A saved catalog for a server with no live connection: fresh or not, it answers now; a stale
 * one is refreshed in the background (which saves it again).
 */
async function savedStatus(
  context: OperationContext,
  prepared: Prepared,
  slot: ServerSlot,
  signal: AbortSignal | undefined,
): Promise<ServerStatus | undefined> {
  const store = context.store;
  if (!store || slot.status !== 'ok') return undefined;
  if (context.pool.isOpen(context.keyOf(prepared, slot.config))) return undefined;
  const saved = await store.load(slot.config.fingerprint, signal, slot.config.publicFingerprint);
  if (!saved) return undefined;
  const ageMs = Math.max(0, Date.now() - saved.savedAt);
  if (ageMs > saved.ttlMs) context.track(context.operation(undefined, () => catalogOf(context, prepared, slot, undefined)));
  return connectedStatus(
    slot.name,
    slot.config.kind,
    valueRedactorOf(prepared.loaded.servers)(saved.tools, slot.name),
    slot.config.toolFilter,
    { ageMs },
    await sandboxNotes(context.machine, slot, signal),
    saved.protocol,
  );
}

async function status(
  context: OperationContext,
  prepared: Prepared,
  slot: ServerSlot,
  refresh: boolean,
  signal: AbortSignal | undefined,
): Promise<ServerStatus> {
  // A start failure backing off answers at once, with the tools of a saved catalog if there is one.
  let dial = refresh;
  if (!refresh && slot.status === 'ok') {
    const failed = context.pendingFailure(prepared, slot.config);
    if (failed)
      return failedStatus(
        slot.name,
        failed,
        slot.config.toolFilter,
        valueRedactorOf(prepared.loaded.servers)(await context.store?.load(slot.config.fingerprint, signal), slot.name),
      );
    // Its window is over: the one attempt it is due, not a saved catalog that says all is well.
    dial = context.backoff.recorded(context.keyOf(prepared, slot.config));
  }
  const saved = dial ? undefined : await savedStatus(context, prepared, slot, signal);
  if (saved) return saved;
  const catalog = await catalogOf(context, prepared, slot, signal, refresh);
  if (catalog.status !== 'connected') return { name: slot.name, ...catalog };
  return connectedStatus(
    slot.name,
    catalog.transport,
    catalog.tools,
    catalog.filter,
    undefined,
    [...(await sandboxNotes(context.machine, slot, signal)), ...catalog.warnings],
    catalog.protocol,
  );
}
