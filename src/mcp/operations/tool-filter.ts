/**
 * `enabledTools` / `disabledTools` of a server entry: a filtered tool does not exist for list,
 * describe, call or typings. A filter name the server lacks is a warning, not an error.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { ToolFilter } from '../../config/index.js';

/** What an answer takes from the entry of this operation: the name it was called by and its filter. */
export interface FilteredEntry {
  readonly name: string;
  readonly toolFilter?: ToolFilter | undefined;
}

/** The tools a script may see. */
export function applyToolFilter(tools: readonly Tool[], filter: ToolFilter | undefined): Tool[] {
  if (!filter) return [...tools];
  const names = new Set(filter.names);
  return tools.filter((tool) => names.has(tool.name) === (filter.mode === 'enabled'));
}

/** True when `name` exists on the server but the filter hides it. */
export function isFilteredOut(name: string, filter: ToolFilter | undefined): boolean {
  if (!filter) return false;
  return filter.names.includes(name) !== (filter.mode === 'enabled');
}

/** One warning per filter name the server does not have. */
export function filterWarnings(tools: readonly Tool[], filter: ToolFilter | undefined): string[] {
  if (!filter) return [];
  const present = new Set(tools.map((tool) => tool.name));
  const key = filter.mode === 'enabled' ? 'enabledTools' : 'disabledTools';
  return filter.names
    .filter((name) => !present.has(name))
    .map((name) => `${key} names "${name}", which the server does not have`);
}

/** Which key hides a tool, for messages. */
export function filterKey(filter: ToolFilter): string {
  return filter.mode === 'enabled' ? 'not in "enabledTools"' : 'in "disabledTools"';
}
