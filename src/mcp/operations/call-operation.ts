/**
 * `mcp_call` on one connection: what is checked before anything is sent (an unknown or filtered
 * tool, the arguments against its inputSchema, then the approval hook), the call (as a task when
 * the tool asks for it), then its result's type learned for describe and typings.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { checkApproval, type ApproveCall } from './approval.js';
import type { ArgumentChecker } from './argument-check.js';
import type { CallOptions, ServerConnection } from '../connection/connection.js';
import type { ObservedTypes } from '../catalog/observed-types/observer.js';
import { usesTask } from '../connection/task-support.js';
import type { FilteredEntry } from './tool-filter.js';
import { findTool, knownTool } from './tool-lookup.js';

/** What the host lends each call. */
export interface CallContext {
  readonly approve: ApproveCall | undefined;
  readonly checker: ArgumentChecker;
  readonly observed: ObservedTypes;
}

/** `entry` is this operation's (its name and filter): twins share a connection. */
export async function callOn(
  connection: ServerConnection,
  entry: FilteredEntry,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions,
  context: CallContext,
): Promise<CallToolResult> {
  const server = entry.name;
  const found = knownTool(connection, entry, tool) ?? (await findTool(connection, entry, tool, options.signal));
  await context.checker.check(server, found, args);
  if (context.approve) await checkApproval(context.approve, server, found, args, options.signal);
  const callOptions = { ...options, server };
  // tasks.js loads the SDK's task schemas: imported when a task tool is first called.
  const result = usesTask(connection, found)
    ? await (await import('./tasks.js')).callToolAsTask(connection, tool, args, callOptions)
    : await connection.callTool(tool, args, callOptions);
  context.observed.learn(connection, found, result);
  return result;
}
