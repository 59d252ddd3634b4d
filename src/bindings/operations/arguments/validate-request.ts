import { BerryError } from '../../../common/errors.js';
import type { CallRequest, DescribeRequest, ListRequest, PromptRequest, ReadRequest, SearchRequest } from '../../contract.js';

function invalid(operation: string, message: string): BerryError {
  return new BerryError('MCP_INVALID_ARGUMENT', `${operation}: ${message}`);
}

function requireObject(operation: string, value: unknown, example: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(operation, `expected an object such as ${example}, got ${describeType(value)}.`);
  }
  return value as Record<string, unknown>;
}

function checkKeys(operation: string, request: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(request)) {
    if (!allowed.includes(key)) {
      throw invalid(operation, `unknown field "${key}"; allowed: ${allowed.join(', ')}.`);
    }
  }
}

function optionalString(operation: string, request: Record<string, unknown>, key: string): string | undefined {
  const value = request[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw invalid(operation, `"${key}" must be a non-empty string, got ${describeType(value)}.`);
  }
  return value;
}

function requiredString(operation: string, request: Record<string, unknown>, key: string): string {
  const value = optionalString(operation, request, key);
  if (value === undefined) throw invalid(operation, `"${key}" is required.`);
  return value;
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 40))}` : `a ${typeof value}`;
}

export function validateListRequest(value: unknown): ListRequest {
  const operation = 'mcp_list';
  const request = requireObject(operation, value, '{} or { server: "docs" }');
  checkKeys(operation, request, ['server', 'refresh']);
  const server = optionalString(operation, request, 'server');
  const refresh = request['refresh'];
  if (refresh !== undefined && typeof refresh !== 'boolean') {
    throw invalid(operation, `"refresh" must be true or false, got ${describeType(refresh)}.`);
  }
  return { ...(server === undefined ? {} : { server }), ...(refresh === true ? { refresh } : {}) };
}

export function validateDescribeRequest(value: unknown): DescribeRequest {
  const operation = 'mcp_describe';
  const request = requireObject(operation, value, '{ server: "docs", tool: "search" }');
  checkKeys(operation, request, ['server', 'tool', 'schemas']);
  const server = requiredString(operation, request, 'server');
  const tool = optionalString(operation, request, 'tool');
  const schemas = request['schemas'];
  if (schemas !== undefined && typeof schemas !== 'boolean') {
    throw invalid(operation, `"schemas" must be true or false, got ${describeType(schemas)}.`);
  }
  return { server, ...(tool === undefined ? {} : { tool }), ...(schemas === true ? { schemas } : {}) };
}

export function validateCallRequest(value: unknown): Required<CallRequest> {
  const operation = 'mcp_call';
  const request = requireObject(operation, value, '{ server: "docs", tool: "search", arguments: {} }');
  checkKeys(operation, request, ['server', 'tool', 'arguments']);
  const server = requiredString(operation, request, 'server');
  const tool = requiredString(operation, request, 'tool');
  const args = request['arguments'] ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw invalid(operation, `"arguments" must be an object of the tool's parameters, got ${describeType(args)}.`);
  }
  return { server, tool, arguments: args as Record<string, unknown> };
}

/**
 * Serializes `args` once (unless flat and surely small), before anything is sent: arguments that
 * cannot become JSON (cycles, BigInt, nesting deeper than the stack) or that pass `maxBytes` are
 * the caller's error, and the connection never sees them.
 */
export function checkArgumentsSize(operation: string, args: Record<string, unknown>, maxBytes: number): void {
  // A flat object of strings, numbers and booleans always serializes; when even its largest
  // possible JSON fits, the size needs no stringify (the common call: a few short parameters).
  if (flatJsonBound(args) <= maxBytes) return;
  let json: string;
  try {
    json = JSON.stringify(args);
  } catch (error) {
    throw invalid(operation, `"arguments" cannot be sent as JSON: ${unserializableReason(error)}. Nothing was sent.`);
  }
  // UTF-8 takes at least one byte and at most three per UTF-16 unit: measure only when it matters.
  const bytes = json.length * 3 <= maxBytes ? json.length : Buffer.byteLength(json);
  if (bytes > maxBytes) {
    throw invalid(
      operation,
      `"arguments" are ${bytes} bytes as JSON, over the limit of ${maxBytes} bytes (maxArgumentBytes). Nothing was sent; ` +
        'pass large data another way (a path or URL the server can read) or raise maxArgumentBytes in createHost options.',
    );
  }
}

/** Bytes the JSON of `args` takes at most when it holds only primitives (6 per UTF-16 unit: a `\\uXXXX` escape); Infinity otherwise. */
function flatJsonBound(args: Record<string, unknown>): number {
  let bound = 2;
  let keys = 0;
  for (const key in args) {
    if (++keys > 16 || !Object.hasOwn(args, key)) return Infinity;
    const value = args[key];
    bound += key.length * 6 + 4;
    if (typeof value === 'string') bound += value.length * 6 + 2;
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) bound += 24;
    else return Infinity;
  }
  return bound;
}

function unserializableReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/call stack/i.test(message)) return 'nested too deeply';
  if (/circular/i.test(message)) return 'it contains a cycle';
  if (/BigInt/i.test(message)) return 'it contains a BigInt (convert it to a string or number)';
  if (/string length/i.test(message)) return 'it is too large';
  return message.split('\n')[0] ?? 'not serializable';
}

export function validateReadRequest(value: unknown): Required<ReadRequest> {
  const operation = 'mcp_read';
  const request = requireObject(operation, value, '{ server: "docs", uri: "file:///readme.md" }');
  checkKeys(operation, request, ['server', 'uri']);
  return { server: requiredString(operation, request, 'server'), uri: requiredString(operation, request, 'uri') };
}

export function validatePromptRequest(value: unknown): Required<PromptRequest> {
  const operation = 'mcp_prompt';
  const request = requireObject(operation, value, '{ server: "docs", name: "summarize", arguments: { topic: "auth" } }');
  checkKeys(operation, request, ['server', 'name', 'arguments']);
  const server = requiredString(operation, request, 'server');
  const name = requiredString(operation, request, 'name');
  const args = request['arguments'] ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw invalid(operation, `"arguments" must be an object of the prompt's string arguments, got ${describeType(args)}.`);
  }
  return { server, name, arguments: args as Record<string, string> };
}

/** The longest `mcp_search` query, in characters: a search is words, not a document. */
export const MAX_SEARCH_QUERY_CHARS = 300;
/** `mcp_search`'s default and largest `limit`. */
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;

export function validateSearchRequest(value: unknown): Required<Omit<SearchRequest, 'server'>> & Pick<SearchRequest, 'server'> {
  const operation = 'mcp_search';
  const request = requireObject(operation, value, '{ query: "write file" } or { query: "issue", server: "github", limit: 5 }');
  checkKeys(operation, request, ['query', 'server', 'limit']);
  const query = request['query'];
  if (typeof query !== 'string' || query.trim() === '') {
    throw invalid(operation, `"query" must be a non-empty string of words, such as "write file", got ${describeType(query)}.`);
  }
  if (query.length > MAX_SEARCH_QUERY_CHARS) {
    throw invalid(operation, `"query" is ${query.length} characters, over the limit of ${MAX_SEARCH_QUERY_CHARS}: search with a few words.`);
  }
  const server = optionalString(operation, request, 'server');
  // Not `??`: a script's NaN crosses as null, and must not become the default.
  const limit = request['limit'] === undefined ? DEFAULT_SEARCH_LIMIT : request['limit'];
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    const got = typeof limit === 'number' ? String(limit) : describeType(limit);
    throw invalid(operation, `"limit" must be a whole number from 1 to ${MAX_SEARCH_LIMIT}, got ${got}.`);
  }
  return { query, limit, ...(server === undefined ? {} : { server }) };
}
