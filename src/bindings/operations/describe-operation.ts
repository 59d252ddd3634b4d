/**
 * `mcp_describe` on one connection: a tool's description, or the server's whole catalog (tools as
 * call signatures, resources, resource templates, prompts), filtered tools left out. `entry` is this
 * operation's (its name and filter): twins share a connection, and the filter may have changed since.
 */
import { isBerryError } from '../../common/errors.js';
import type { DescribeRequest, DescribeResult, OperationOptions, ServerDescription, ToolDescription } from '../contract.js';
import type { OperationContext } from './context.js';
import { validateDescribeRequest } from './arguments/validate-request.js';
import type { ServerConnection } from '../connection/connection.js';
import { describeTool, promptLine, resourceLine, toolLine } from '../catalog/describe-format.js';
import type { ObservedTools } from '../catalog/observed-types/observation.js';
import type { FilteredEntry } from './tool-filter.js';
import { findTool, visibleTools } from './tool-lookup.js';

/** `mcp_describe`: a tool, or the whole server. An explicit look: a recorded start failure does not answer for it. */
export function describe(context: OperationContext, request: DescribeRequest, options: OperationOptions): Promise<DescribeResult> {
  const { server, tool, schemas } = validateDescribeRequest(request);
  const { signal } = options;
  return context.withEntry(
    server,
    async (connection, entry, gate) => {
      // Only what this client's own calls taught (ObservedTypes.for).
      const observed = await context.observed.for(options.client).viewOf(connection, entry.name, gate, signal);
      return tool === undefined
        ? describeServer(connection, entry, signal, observed)
        : describeToolOf(connection, entry, tool, schemas === true, signal, observed);
    },
    signal,
    true,
  );
}

export async function describeToolOf(
  connection: ServerConnection,
  entry: FilteredEntry,
  tool: string,
  withSchemas: boolean,
  signal: AbortSignal | undefined,
  observed?: ObservedTools,
): Promise<ToolDescription> {
  return describeTool(entry.name, await findTool(connection, entry, tool, signal), withSchemas, observed?.get(tool));
}

export async function describeServer(
  connection: ServerConnection,
  entry: FilteredEntry,
  signal: AbortSignal | undefined,
  observed?: ObservedTools,
): Promise<DescribeResult> {
  const { catalog } = connection;
  const warnings: string[] = [];
  // A server whose prompts or resources list fails (the server said no) still describes its tools.
  const orEmpty = <T>(what: string, listing: Promise<{ items: T[] }>): Promise<{ items: T[] }> =>
    listing.catch((error: unknown) => {
      if (!isBerryError(error) || error.code !== 'MCP_PROTOCOL_ERROR') throw error;
      warnings.push(`${what} failed: ${error.message}`);
      return { items: [] };
    });
  const [tools, resources, templates, prompts] = await Promise.all([
    visibleTools(connection, entry, signal),
    orEmpty('resources/list', catalog.list('resources', signal, entry.name)),
    orEmpty('resources/templates/list', catalog.list('resourceTemplates', signal, entry.name)),
    orEmpty('prompts/list', catalog.list('prompts', signal, entry.name)),
  ]);
  const info = connection.client.getServerVersion();
  const instructions = connection.client.getInstructions();
  const description: ServerDescription = {
    server: entry.name,
    ...(info ? { serverInfo: { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) } } : {}),
    ...(connection.protocolVersion ? { protocolVersion: connection.protocolVersion } : {}),
    ...(instructions ? { instructions } : {}),
    tools: Object.fromEntries(await Promise.all(tools.map(async (tool) => [tool.name, await toolLine(tool, observed?.get(tool.name))] as const))),
    resources: Object.fromEntries(resources.items.map((r) => [r.uri, resourceLine(r)])),
    resourceTemplates: Object.fromEntries(templates.items.map((t) => [t.uriTemplate, resourceLine(t)])),
    prompts: Object.fromEntries(prompts.items.map((p) => [p.name, promptLine(p)])),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
  return description;
}
