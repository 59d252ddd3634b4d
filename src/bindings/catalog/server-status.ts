/** A server's entry in `mcp_list`, from its whole tool list (live or saved) and its filter. */
import type { Tool } from '@modelcontextprotocol/client';
import type { ServerSlot, ToolFilter } from '../../config/index.js';
import type { BerryError } from '../../common/errors.js';
import type { Machine } from '../../remote/machine/index.js';
// The module itself, not the remote face: the face loads the MCP transports (and the SDK).
import { unconfinedNote } from '../../remote/machine/sandbox/sandbox-spawn.js';
import type { SavedCatalog } from './catalog-store.js';
import type { ServerStatus } from '../contract.js';
import { summarize } from './summarize.js';
import { applyToolFilter, filterWarnings } from '../operations/tool-filter.js';

export function connectedStatus(
  name: string,
  transport: 'stdio' | 'http',
  tools: readonly Tool[],
  filter: ToolFilter | undefined,
  cached?: { readonly ageMs: number },
  notes: readonly string[] = [],
  protocol?: string,
): ServerStatus {
  const warnings = [...notes, ...filterWarnings(tools, filter)];
  return {
    name,
    status: 'connected',
    transport,
    ...(protocol === undefined ? {} : { protocol }),
    tools: summaries(tools, filter),
    ...(cached ? { cached } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** A server whose start failed (and backs off): the failure, and the tools of a catalog saved earlier. */
export function failedStatus(name: string, error: BerryError, filter: ToolFilter | undefined, saved: SavedCatalog | undefined): ServerStatus {
  return {
    name,
    status: 'error',
    error: { code: error.code, message: error.message },
    ...(saved ? { tools: summaries(saved.tools, filter), cached: { ageMs: Math.max(0, Date.now() - saved.savedAt) } } : {}),
  };
}

/** `sandbox.mode: "auto"` without a usable bubblewrap: the server runs unconfined, and list says so. */
export async function sandboxNotes(machine: Machine, slot: ServerSlot, signal: AbortSignal | undefined): Promise<string[]> {
  if (slot.status !== 'ok' || slot.config.kind !== 'stdio') return [];
  const note = await unconfinedNote(machine, slot.config, slot.config.sandbox, signal).catch(() => undefined);
  return note === undefined ? [] : [note];
}

function summaries(tools: readonly Tool[], filter: ToolFilter | undefined): { name: string; description: string }[] {
  return applyToolFilter(tools, filter).map((tool) => ({ name: tool.name, description: summarize(tool.description) }));
}
