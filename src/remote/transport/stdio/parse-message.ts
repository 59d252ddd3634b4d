/**
 * One stdout line as a JSON-RPC message, as the SDK's `deserializeMessage` reads it, with a fast
 * path for the message a client gets most: a result response.
 *
 * The SDK checks every line against the union of the four message schemas. For a result response
 * that takes about as long as the JSON parse itself, and it is the first code to run when a
 * response wakes the host, with its caches cold (≈ 5 µs of a warm call's turnaround here,
 * docs/performance.md). A response whose envelope is exactly `{jsonrpc: "2.0", id, result}` with
 * an integer or string id and an object result without `_meta` is one the union's result member
 * would take as it is: it is handed on unchanged. Anything else (requests, notifications, errors,
 * a `_meta` with its own schema, any stray key) goes through the SDK's schema as before, and fails
 * as it did. The result itself is checked later by its request's own result schema.
 */
import { parseJSONRPCMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { isJsonObject } from '../../../common/json-object.js';

/** Parses `line`: a SyntaxError for bad JSON, the SDK's schema error for a message of no known shape. */
export function parseMessage(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return isPlainResultResponse(value) ? (value as JSONRPCMessage) : parseJSONRPCMessage(value);
}

/** True when `value` is a result response that the SDK's JSONRPCResultResponse schema passes unchanged. */
export function isPlainResultResponse(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
    keys++;
  }
  if (keys !== 3 || value['jsonrpc'] !== '2.0') return false;
  const id = value['id'];
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  const result = value['result'];
  // `_meta` has a schema of its own (its serverInfo is dropped when malformed): the SDK reads it.
  return isJsonObject(result) && !Object.hasOwn(result, '_meta') && !Object.hasOwn(result, '__proto__');
}
