/**
 * Which listed tools a model may see on one entry: not one that `enabledTools` / `disabledTools`
 * filters out, and not one the server keeps for its MCP App (`_meta.ui.visibility` without
 * "model", catalog/app-visibility.ts). A hidden tool does not exist for list, describe, call,
 * typings or serve's description; every answer built from a tool list goes through here. A filter
 * name the server lacks is a warning, not an error.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { ToolFilter } from '../../config/index.js';
import { appHiding } from '../catalog/app-visibility.js';

/** What an answer takes from the entry of this operation: the name it was called by and its filter. */
export interface FilteredEntry {
  readonly name: string;
  readonly toolFilter?: ToolFilter | undefined;
}

/** The tools a script may see. */
export function applyToolFilter(tools: readonly Tool[], filter: ToolFilter | undefined): Tool[] {
  return tools.filter((tool) => modelSees(tool, filter));
}

/** True when the model may see and call `tool` through an entry with `filter`. */
export function modelSees(tool: Tool, filter: ToolFilter | undefined): boolean {
  return !isFilteredOut(tool.name, filter) && appHiding(tool) === undefined;
}

/** Why the model may not see `tool` (a clause for "… has no tool "x" available: …"), or undefined when it may. */
export function hiddenReason(tool: Tool, filter: ToolFilter | undefined): string | undefined {
  if (filter && isFilteredOut(tool.name, filter)) return `it is ${filterKey(filter)} for this server in mcp.json`;
  const hiding = appHiding(tool);
  if (hiding === 'app-only') return 'the server keeps it for its MCP App\'s own use (its _meta.ui.visibility leaves out "model")';
  if (hiding === 'malformed') return 'its MCP Apps _meta.ui is malformed (visibility must be a list such as ["model", "app"]), so it is kept from the model';
  return undefined;
}

/** True when `name` exists on the server but the filter hides it. */
export function isFilteredOut(name: string, filter: ToolFilter | undefined): boolean {
  if (!filter) return false;
  return filter.names.includes(name) !== (filter.mode === 'enabled');
}

/** One warning per filter name the server does not have, or (enabledTools) keeps for its app. */
export function filterWarnings(tools: readonly Tool[], filter: ToolFilter | undefined): string[] {
  if (!filter) return [];
  const present = new Map(tools.map((tool) => [tool.name, tool]));
  const key = filter.mode === 'enabled' ? 'enabledTools' : 'disabledTools';
  return filter.names.flatMap((name) => {
    const tool = present.get(name);
    if (tool === undefined) return [`${key} names "${name}", which the server does not have`];
    // enabledTools cannot hand the model a tool the server keeps from it.
    if (filter.mode === 'enabled' && appHiding(tool) !== undefined)
      return [`enabledTools names "${name}", which the server keeps from the model (MCP Apps _meta.ui.visibility): it stays hidden`];
    return [];
  });
}

/** Which key hides a tool, for messages. */
export function filterKey(filter: ToolFilter): string {
  return filter.mode === 'enabled' ? 'not in "enabledTools"' : 'in "disabledTools"';
}
