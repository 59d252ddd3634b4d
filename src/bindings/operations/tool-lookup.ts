/**
 * The tools a script may use on one connection: the live catalog with the entry's filter and the
 * tools' MCP Apps visibility applied (tool-filter.ts), and the check every describe and call makes
 * before anything is sent. A name missing from a
 * catalog cached earlier refreshes it once (a server may change its tools without telling).
 *
 * The name and filter come from the entry of *this* operation, never from the connection: entries
 * with the same resolved config share one connection, and the file is reread every operation.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { BerryError } from '../../common/errors.js';
import { nameList } from '../../common/closest-names.js';
import type { ServerConnection } from '../connection/connection.js';
import { applyToolFilter, hiddenReason, isFilteredOut, modelSees, type FilteredEntry } from './tool-filter.js';

/** The catalog's tools minus the ones the model may not see through `entry`. */
export async function visibleTools(connection: ServerConnection, entry: FilteredEntry, signal: AbortSignal | undefined): Promise<Tool[]> {
  return applyToolFilter(await connection.listTools(signal, entry.name), entry.toolFilter);
}

/** The tool from the settled catalog without awaiting (the call hot path), unless hidden. */
export function knownTool(connection: ServerConnection, entry: FilteredEntry, name: string): Tool | undefined {
  const tool = connection.catalog.toolNamed(name);
  return tool === undefined || !modelSees(tool, entry.toolFilter) ? undefined : tool;
}

/** The tool named `name`, or MCP_UNKNOWN_TOOL (hidden ones too) listing the closest visible names first. */
export async function findTool(connection: ServerConnection, entry: FilteredEntry, name: string, signal: AbortSignal | undefined): Promise<Tool> {
  const { name: server, toolFilter } = entry;
  const cachedBefore = connection.catalog.ageMs('tools') !== undefined;
  let tools = await connection.listTools(signal, entry.name);
  let found = tools.find((t) => t.name === name);
  if (!found && cachedBefore && !isFilteredOut(name, toolFilter)) {
    connection.catalog.invalidate('tools');
    tools = await connection.listTools(signal, entry.name);
    found = tools.find((t) => t.name === name);
  }
  const visible = applyToolFilter(tools, toolFilter);
  const hidden = found && hiddenReason(found, toolFilter);
  if (hidden) {
    throw new BerryError(
      'MCP_UNKNOWN_TOOL',
      `Server "${server}" has no tool "${name}" available: ${hidden}. Its tools: ${nameList(
        name,
        visible.map((t) => t.name),
      )}.`,
    );
  }
  if (found) return found;
  throw new BerryError(
    'MCP_UNKNOWN_TOOL',
    `Server "${server}" has no tool "${name}". Its tools, closest first: ${nameList(
      name,
      visible.map((t) => t.name),
    )}.`,
  );
}
