/**
 * `mcp_call` on one connection: what is checked before anything is sent (an unknown or filtered
 * tool, the arguments against its inputSchema, then the approval hook), the call (as a task when
 * the tool asks for it), then its result's type learned for describe and typings.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { checkApproval, type ApproveCall } from './approval/approval.js';
import type { ArgumentChecker } from './arguments/argument-check.js';
import type { CallOptions, ServerConnection } from '../connection/connection.js';
import type { ObservedTypes } from '../catalog/observed-types/observer.js';
import { usesTask } from '../connection/task-support.js';
import type { FilteredEntry } from './tool-filter.js';
import { findTool, knownTool } from './tool-lookup.js';
import type { CallRequest, CallResult, OperationOptions } from '../contract.js';
import type { OperationContext } from './context.js';
import { checkArgumentsSize, validateCallRequest } from './arguments/validate-request.js';
import type { ServerTextGate } from '../server-text/gate.js';

/** What the host lends each call. */
export interface CallContext {
  readonly approve: ApproveCall | undefined;
  readonly checker: ArgumentChecker;
  /** The caller's own learning (ObservedTypes.for its client). */
  readonly observed: ObservedTypes;
  /** otel.captureArguments: the call's span carries its arguments, masked. */
  readonly capture?: boolean;
}

/** One call's options: a call's own approval hook (a served run's) takes the host's place. */
export interface CallOperationOptions extends OperationOptions {
  readonly approveCall?: ApproveCall;
}

/** `mcp_call`: checks the request, then calls the tool on the connection for its server. */
export function call(context: OperationContext, request: CallRequest, options: CallOperationOptions): Promise<CallResult> {
  const { server, tool, arguments: args } = validateCallRequest(request);
  checkArgumentsSize('mcp_call', args, context.maxArgumentBytes);
  const callContext = {
    approve: options.approveCall ?? context.approveCall,
    checker: context.arguments,
    observed: context.observed.for(options.client),
    capture: context.captureArguments,
  };
  return context.withEntry(server, (connection, entry, gate) => callOn(connection, entry, tool, args, options, callContext, gate), options.signal);
}

/** `entry` is this operation's (its name and filter): twins share a connection. */
export async function callOn(
  connection: ServerConnection,
  entry: FilteredEntry,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions,
  context: CallContext,
  gate: ServerTextGate,
): Promise<CallToolResult> {
  const server = entry.name;
  const found = knownTool(connection, entry, tool) ?? (await findTool(connection, entry, tool, options.signal));
  // Compiled schemas check synchronously: no await (a turn of the microtask queue) unless compiling.
  const compiling = context.checker.check(server, found, args);
  if (compiling) await compiling;
  // The approver sees the tool's annotations as a model would: masked.
  if (context.approve)
    await checkApproval(
      context.approve,
      server,
      found.annotations ? { ...found, annotations: gate.value(found.annotations, server) } : found,
      args,
      options.signal,
    );
  // otel.captureArguments: masked as every output is (the config's secrets), before the span sees them.
  const callOptions = context.capture ? { ...options, server, tracedArguments: gate.value(args, server) } : { ...options, server };
  // tasks.js loads the SDK's task schemas: imported when a task tool is first called.
  const result = usesTask(connection, found)
    ? await (await import('./tasks.js')).callToolAsTask(connection, tool, args, callOptions)
    : await connection.callTool(tool, args, callOptions);
  context.observed.learn(connection, found, result, gate);
  return result;
}
