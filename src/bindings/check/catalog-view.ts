/**
 * What the check needs of each server a script names, read the way the script's own first call
 * would read it: the entry as mcp.json says now, the pooled connection (started if it must be:
 * the run would start it anyway; a server backing off after a failed start is not started again),
 * each literal tool name looked up by the call's own lookup (filters, MCP Apps visibility, one
 * refresh of a cached list), the prompts, whether resources exist. A server that cannot be asked
 * (disabled, broken entry, failed start, sign-in needed) is skipped: the run reports it itself.
 * What comes back passed the config's secret gate, as every operation's answer does.
 */
import type { Prompt, Tool } from '@modelcontextprotocol/client';
import type { ResolvedServerConfig } from '../../config/index.js';
import { isBerryError } from '../../common/errors.js';
import type { ObservedTools } from '../catalog/observed-types/observation.js';
import type { ServerConnection } from '../connection/connection.js';
import type { OperationContext } from '../operations/context.js';
import { unknownServer } from '../operations/resolve-entry.js';
import { findTool, knownTool, visibleTools } from '../operations/tool-lookup.js';
import { applyToolFilter, hiddenReason } from '../operations/tool-filter.js';
import { nameList } from '../../common/closest-names.js';
import { gateOf } from '../server-text/gate.js';

export interface ServerNeeds {
  readonly tools: Set<string>;
  prompts: boolean;
  resources: boolean;
  /** A call needs the server's catalog (a tool, prompt or resource named): else only its entry is looked up, nothing started. */
  connect: boolean;
}

export type ServerCatalog =
  | { readonly kind: 'unknown'; readonly message: string }
  | { readonly kind: 'skipped' }
  | {
      readonly kind: 'listed';
      /** Each named tool: found, or the call's own MCP_UNKNOWN_TOOL message (closest names first). */
      readonly tools: ReadonlyMap<string, Tool | { readonly unknown: string }>;
      /** Every tool the script may call (for the typings of the warnings), with what calls taught of their results. */
      readonly visible: readonly Tool[];
      readonly observed: ObservedTools | undefined;
      /** The server says its tool (prompt) list may change (`listChanged`): a call may make one appear. */
      readonly toolsMayChange: boolean;
      readonly promptsMayChange: boolean;
      /** null: the server publishes none (no capability); undefined: its list could not be read. */
      readonly prompts: readonly Prompt[] | null | undefined;
      readonly resources: { readonly uris: readonly string[]; readonly templates: readonly string[] } | null | undefined;
    };

interface Listed {
  readonly tools: [string, Tool | { readonly unknown: string }][];
  readonly toolsMayChange: boolean;
  readonly promptsMayChange: boolean;
  readonly visible: Tool[];
  readonly prompts: Prompt[] | null | undefined;
  readonly resources: { uris: string[]; templates: string[] } | null | undefined;
}

/** The catalogs of `needs`' servers; rejects only when the config cannot be read (the check is then skipped). */
export function catalogsFor(
  context: OperationContext,
  needs: ReadonlyMap<string, ServerNeeds>,
  client: object | undefined,
  signal: AbortSignal,
): Promise<Map<string, ServerCatalog>> {
  return context.operation(signal, async () => {
    const prepared = await context.prepare(signal);
    const { servers, path, exists } = prepared.loaded;
    const out = new Map<string, ServerCatalog>();
    await Promise.all(
      [...needs].map(async ([server, need]) => {
        const slot = servers.find((s) => s.name === server);
        if (slot === undefined) {
          const names = servers.map((s) => s.name);
          out.set(server, { kind: 'unknown', message: unknownServer(server, names, path, exists).message });
          return;
        }
        // mcp_list and mcp_describe({ server }) may answer from a saved catalog: the check starts nothing for them.
        if (slot.status !== 'ok' || !need.connect) return out.set(server, { kind: 'skipped' });
        try {
          const listed = await context.use(prepared, slot.config, (connection) => listFor(connection, slot.config, need, signal), signal);
          const observed = await context.observed
            .for(client)
            .view(slot.config.fingerprint, server, listed.visible, gateOf(servers), signal)
            .catch(() => undefined);
          out.set(server, { kind: 'listed', ...listed, tools: new Map(listed.tools), observed });
        } catch {
          // Not started, not signed in, cancelled: the run meets the same and says so in its own words.
          out.set(server, { kind: 'skipped' });
        }
      }),
    );
    return out;
  });
}

async function listFor(connection: ServerConnection, entry: ResolvedServerConfig, need: ServerNeeds, signal: AbortSignal): Promise<Listed> {
  const tools: [string, Tool | { readonly unknown: string }][] = [];
  // The call's own lookup refreshes a cached list once for a name it lacks; so does the check, once
  // for all its names (a script naming a thousand unknown tools asks for the list twice, not a thousand times).
  let refreshed = false;
  for (const name of need.tools) {
    let found: Tool | { readonly unknown: string } | undefined = knownTool(connection, entry, name);
    if (found === undefined && !refreshed) {
      refreshed = true;
      found = await findTool(connection, entry, name, signal).catch(unknownTool);
    }
    tools.push([name, found ?? (await lookupWithoutRefresh(connection, entry, name, signal))]);
  }
  const { catalog } = connection;
  const list = async <T>(read: () => Promise<T>): Promise<T | undefined> => read().catch(() => undefined);
  const prompts = !need.prompts
    ? undefined
    : !catalog.supports('prompts')
      ? null
      : await list(async () => (await catalog.list('prompts', signal, entry.name)).items);
  const resources = !need.resources
    ? undefined
    : !catalog.supports('resources')
      ? null
      : await list(async () => ({
          uris: (await catalog.list('resources', signal, entry.name)).items.map((r) => r.uri),
          templates: (await catalog.list('resourceTemplates', signal, entry.name)).items.map((t) => t.uriTemplate),
        }));
  const capabilities = connection.client.getServerCapabilities();
  const toolsMayChange = capabilities?.tools?.listChanged === true;
  const promptsMayChange = capabilities?.prompts?.listChanged === true;
  return { tools, toolsMayChange, promptsMayChange, visible: await visibleTools(connection, entry, signal), prompts, resources };
}

/** What findTool finds for `name`, without refreshing the list again. */
async function lookupWithoutRefresh(
  connection: ServerConnection,
  entry: ResolvedServerConfig,
  name: string,
  signal: AbortSignal,
): Promise<Tool | { readonly unknown: string }> {
  const all = await connection.listTools(signal, entry.name);
  const listed = all.find((tool) => tool.name === name);
  const hidden = listed && hiddenReason(listed, entry.toolFilter);
  if (listed && !hidden) return listed;
  const visible = applyToolFilter(all, entry.toolFilter).map((tool) => tool.name);
  if (hidden) return { unknown: `Server "${entry.name}" has no tool "${name}" available: ${hidden}. Its tools: ${nameList(name, visible)}.` };
  return { unknown: `Server "${entry.name}" has no tool "${name}". Its tools, closest first: ${nameList(name, visible)}.` };
}

function unknownTool(error: unknown): { readonly unknown: string } {
  if (isBerryError(error) && error.code === 'MCP_UNKNOWN_TOOL') return { unknown: error.message };
  throw error;
}
