/** A connected server's entry in `mcp_list`, from its whole tool list (live or saved) and its filter. */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolFilter } from '../config/index.js';
import type { ServerStatus } from './contract.js';
import { summarize } from './summarize.js';
import { applyToolFilter, filterWarnings } from './tool-filter.js';

export function connectedStatus(
  name: string,
  transport: 'stdio' | 'http',
  tools: readonly Tool[],
  filter: ToolFilter | undefined,
  cached?: { readonly ageMs: number },
): ServerStatus {
  const warnings = filterWarnings(tools, filter);
  return {
    name,
    status: 'connected',
    transport,
    tools: applyToolFilter(tools, filter).map((tool) => ({ name: tool.name, description: summarize(tool.description) })),
    ...(cached ? { cached } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
