import type { Tool } from '@modelcontextprotocol/client';
import type { ServerConnection } from './connection.js';
import { taskSupportOf } from '../catalog/describe-format.js';

/** A tool called with task augmentation: taskSupport "required", or "optional" on a server that takes task calls. */
export function usesTask(connection: ServerConnection, tool: Tool): boolean {
  const support = taskSupportOf(tool);
  if (support === 'required') return true;
  return support === 'optional' && connection.client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
}
