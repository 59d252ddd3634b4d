/**
 * The tools a script may use on one connection: the live catalog with the entry's filter applied,
 * and the check every describe and call makes before anything is sent. A name missing from a
 * catalog cached earlier refreshes it once (a server may change its tools without telling).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { BerryError } from '../errors.js';
import { nameList } from './closest-names.js';
import type { ServerConnection } from './connection.js';
import { applyToolFilter, filterKey, isFilteredOut } from './tool-filter.js';

/** The catalog's tools minus the filtered ones. */
export async function visibleTools(connection: ServerConnection, signal: AbortSignal | undefined): Promise<Tool[]> {
  return applyToolFilter(await connection.listTools(signal), connection.config.toolFilter);
}

/** The tool from the settled catalog without awaiting (the call hot path), unless filtered out. */
export function knownTool(connection: ServerConnection, name: string): Tool | undefined {
  const tool = connection.catalog.toolNamed(name);
  return tool === undefined || isFilteredOut(name, connection.config.toolFilter) ? undefined : tool;
}

/** The tool named `name`, or MCP_UNKNOWN_TOOL listing the closest names first. */
export async function findTool(
  connection: ServerConnection,
  name: string,
  signal: AbortSignal | undefined,
): Promise<Tool> {
  const { config } = connection;
  const server = config.name;
  const cachedBefore = connection.catalog.ageMs('tools') !== undefined;
  let tools = await connection.listTools(signal);
  let found = tools.find((t) => t.name === name);
  if (!found && cachedBefore && !isFilteredOut(name, config.toolFilter)) {
    connection.catalog.invalidate('tools');
    tools = await connection.listTools(signal);
    found = tools.find((t) => t.name === name);
  }
  const visible = applyToolFilter(tools, config.toolFilter);
  if (found && config.toolFilter && isFilteredOut(name, config.toolFilter)) {
    throw new BerryError(
      'MCP_UNKNOWN_TOOL',
      `Server "${server}" has no tool "${name}" available: it is ${filterKey(config.toolFilter)} for this server in mcp.json. ` +
        `Its tools: ${nameList(name, visible.map((t) => t.name))}.`,
    );
  }
  if (found) return found;
  throw new BerryError(
    'MCP_UNKNOWN_TOOL',
    `Server "${server}" has no tool "${name}". Its tools, closest first: ${nameList(name, visible.map((t) => t.name))}.`,
  );
}
