/**
 * Following an MCP list method's cursors to the end, defensively: a page cap, duplicate names
 * dropped (first wins), a cursor loop ends the listing, and a cursor the server rejects restarts
 * the listing once from the first page.
 */
import { ProtocolError as RpcError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { ProtocolError } from '../../common/errors.js';

/** A server that pages a list forever must not hang discovery. */
export const MAX_LIST_PAGES = 50;

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string | undefined;
  /** `ttlMs` from the result's `_meta`, when the server gave one (saved catalogs honour it). */
  readonly ttlMs?: number | undefined;
}

export interface Listing<T> {
  readonly items: T[];
  /** True when the page cap ended the listing before the server did. */
  readonly truncated: boolean;
  readonly ttlMs?: number;
}

/** Lists every page of one method; `keyOf` names an item for de-duplication. */
export async function listAllPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  keyOf: (item: T) => string,
  maxPages = MAX_LIST_PAGES,
): Promise<Listing<T>> {
  try {
    return await walk(fetchPage, keyOf, maxPages);
  } catch (error) {
    if (!(error instanceof CursorRejected)) throw error;
    // The server forgot or refused its own cursor (restarted, expired): start over once.
    try {
      return await walk(fetchPage, keyOf, maxPages);
    } catch (again) {
      throw again instanceof CursorRejected ? again.cause : again;
    }
  }
}

class CursorRejected extends Error {}

async function walk<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  keyOf: (item: T) => string,
  maxPages: number,
): Promise<Listing<T>> {
  const items: T[] = [];
  const names = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0; page < maxPages; page++) {
    let result: Page<T>;
    try {
      result = await fetchPage(cursor);
    } catch (error) {
      if (cursor !== undefined && isInvalidParams(error)) {
        throw new CursorRejected('cursor rejected', { cause: error });
      }
      throw error;
    }
    if (page === 0 && result.ttlMs !== undefined) ttlMs = result.ttlMs;
    for (const item of result.items) {
      const key = keyOf(item);
      if (names.has(key)) continue;
      names.add(key);
      items.push(item);
    }
    cursor = result.nextCursor;
    if (cursor === undefined || cursors.has(cursor)) return { items, truncated: false, ...(ttlMs === undefined ? {} : { ttlMs }) };
    cursors.add(cursor);
  }
  return { items, truncated: true, ...(ttlMs === undefined ? {} : { ttlMs }) };
}

/** JSON-RPC -32602, as the SDK threw it or as the connection mapped it. */
function isInvalidParams(error: unknown): boolean {
  if (error instanceof RpcError) return error.code === ProtocolErrorCode.InvalidParams;
  return error instanceof ProtocolError && error.rpcCode === ProtocolErrorCode.InvalidParams;
}

/** `ttlMs` as a server may put it in a list result's `_meta` (a positive number of milliseconds). */
export function ttlOf(result: { _meta?: Record<string, unknown> | undefined }): number | undefined {
  const value = result._meta?.['ttlMs'] ?? (result as Record<string, unknown>)['ttlMs'];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
