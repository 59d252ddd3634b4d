import type { OperationOptions, ReadRequest, ReadResult } from '../contract.js';
import type { OperationContext } from './context.js';
import { validateReadRequest } from './arguments/validate-request.js';

/**
 * `mcp_read` on the connection for the request's server. resources.js loads the SDK's schemas: it
 * is imported when first used, after a connection has loaded the SDK anyway.
 */
export function read(context: OperationContext, request: ReadRequest, options: OperationOptions): Promise<ReadResult> {
  const valid = validateReadRequest(request);
  return context.withEntry(valid.server, async (connection) => (await import('./resources.js')).readResource(connection, valid, options), options.signal);
}
