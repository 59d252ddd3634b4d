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
  /** `ttlMs` of the result (or its `_meta`), when the server gave one (saved catalogs honour it). */
  readonly ttlMs?: number | undefined;
  /** `cacheScope` of the result (2026-07-28): `public` may serve another credential. */
  readonly cacheScope?: CacheScope | undefined;
}

export type CacheScope = 'public' | 'private';

export interface Listing<T> {
  readonly items: T[];
  /** True when the page cap ended the listing before the server did. */
  readonly truncated: boolean;
  readonly ttlMs?: number;
  readonly cacheScope?: CacheScope;
  /** Items left out, and why (see header-annotations.ts). */
  readonly warnings?: readonly string[];
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

async function walk<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, keyOf: (item: T) => string, maxPages: number): Promise<Listing<T>> {
  const items: T[] = [];
  const names = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  let cacheScope: CacheScope | undefined;
  const done = (truncated: boolean): Listing<T> => ({
    items,
    truncated,
    ...(ttlMs === undefined ? {} : { ttlMs }),
    ...(cacheScope === undefined ? {} : { cacheScope }),
  });
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
    // The first page's hints speak for the list; any private page keeps the whole list private.
    if (page === 0) ttlMs = result.ttlMs;
    if (result.cacheScope === 'private' || (page === 0 && result.cacheScope === 'public')) cacheScope = result.cacheScope;
    for (const item of result.items) {
      const key = keyOf(item);
      if (names.has(key)) continue;
      names.add(key);
      items.push(item);
    }
    cursor = result.nextCursor;
    if (cursor === undefined || cursors.has(cursor)) return done(false);
    cursors.add(cursor);
  }
  return done(true);
}

/** JSON-RPC -32602, as the SDK threw it or as the connection mapped it. */
function isInvalidParams(error: unknown): boolean {
  if (error instanceof RpcError) return error.code === ProtocolErrorCode.InvalidParams;
  return error instanceof ProtocolError && error.rpcCode === ProtocolErrorCode.InvalidParams;
}

/** A server cannot make a list fresh for longer than this (the SDK's own cap). */
export const MAX_TTL_MS = 24 * 60 * 60_000;

/**
 * `ttlMs` of a list result (2026-07-28: on the result; earlier servers put it in `_meta`), capped.
 * `0` (what v2 servers send by default) promises nothing: treated as absent, not "ask every time".
 */
export function ttlOf(result: { _meta?: Record<string, unknown> | undefined }): number | undefined {
  const value = (result as Record<string, unknown>)['ttlMs'] ?? result._meta?.['ttlMs'];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(value, MAX_TTL_MS) : undefined;
}

export function cacheScopeOf(result: Record<string, unknown>): CacheScope | undefined {
  const value = result['cacheScope'];
  return value === 'public' || value === 'private' ? value : undefined;
}
