/**
 * Saved catalogs: a server's tool list, saved in the store (files on the target machine, or a
 * fleet's Redis) after a successful listing so a later `list` can answer without starting the
 * server. One record per resolved-config fingerprint (a changed entry never reads an old catalog),
 * holding only what the server listed: no config, no secrets. Records are replaced atomically, so
 * a reader never sees half of one.
 */
import { nodeCrypto } from '../../common/lazy-node.js';
import type { Tool } from '@modelcontextprotocol/client';
import type { Store } from '../../store/index.js';

/** How long a saved catalog is fresh when the server gave no `ttlMs`. */
export const DEFAULT_CATALOG_TTL_MS = 10 * 60_000;
/** A file larger than this is not a catalog we wrote: ignore it. */
const MAX_CATALOG_BYTES = 16 * 1024 * 1024;
const FORMAT = 1;
/** Observed types are bounded per tool (4 KB); a file larger than this is not one we wrote. */
const MAX_OBSERVED_BYTES = 8 * 1024 * 1024;

export interface SavedCatalog {
  readonly savedAt: number;
  readonly ttlMs: number;
  /** The server's whole tool list, unfiltered (filters apply when it is read). */
  readonly tools: Tool[];
  /** The revision the server spoke when it was listed. */
  readonly protocol?: string;
  /** `public`: the server said any credential may be served this list (saved for others too). */
  readonly cacheScope?: 'public' | 'private';
}

/** What is saved beside a tool list. */
export interface SaveDetails {
  readonly ttlMs?: number | undefined;
  readonly protocol?: string | undefined;
  readonly cacheScope?: 'public' | 'private' | undefined;
  /** Where a `public` list is saved too (see ResolvedCommon.publicFingerprint). */
  readonly publicFingerprint?: string | undefined;
}

export class CatalogStore {
  readonly #store: Store;
  /** When this store last wrote a live listing (the connection's cached array), by fingerprint. */
  readonly #written = new WeakMap<readonly Tool[], Map<string, number>>();

  constructor(store: Store) {
    this.#store = store;
  }

  /**
   * The catalog saved for this entry, else (with `publicFingerprint`) one another credential of the
   * same server saved that the server marked `public`; a `private` one never serves another.
   */
  async load(fingerprint: string, signal?: AbortSignal, publicFingerprint?: string): Promise<SavedCatalog | undefined> {
    const own = await this.#load(nameOf(fingerprint), signal);
    if (own || publicFingerprint === undefined) return own;
    const shared = await this.#load(nameOf(publicFingerprint, '.public'), signal);
    return shared?.cacheScope === 'public' ? shared : undefined;
  }

  async #load(name: string, signal: AbortSignal | undefined): Promise<SavedCatalog | undefined> {
    let text: string | undefined;
    try {
      text = await this.#store.read('catalog', name, { maxBytes: MAX_CATALOG_BYTES, signal });
    } catch {
      return undefined;
    }
    if (text === undefined) return undefined;
    try {
      const value = JSON.parse(text) as Partial<SavedCatalog> & { format?: number };
      if (value.format !== FORMAT || typeof value.savedAt !== 'number' || typeof value.ttlMs !== 'number' || !Array.isArray(value.tools)) {
        return undefined;
      }
      return {
        savedAt: value.savedAt,
        ttlMs: value.ttlMs,
        tools: value.tools,
        ...(typeof value.protocol === 'string' ? { protocol: value.protocol.slice(0, 40) } : {}),
        ...(value.cacheScope === 'public' || value.cacheScope === 'private' ? { cacheScope: value.cacheScope } : {}),
      };
    } catch {
      return undefined;
    }
  }

  async save(fingerprint: string, tools: readonly Tool[], details: SaveDetails = {}): Promise<void> {
    const { ttlMs, protocol, cacheScope, publicFingerprint } = details;
    const data = JSON.stringify({
      format: FORMAT,
      savedAt: Date.now(),
      ttlMs: ttlMs ?? DEFAULT_CATALOG_TTL_MS,
      tools,
      ...(protocol ? { protocol } : {}),
      ...(cacheScope ? { cacheScope } : {}),
    });
    await this.#store.write('catalog', nameOf(fingerprint), data);
    if (cacheScope === 'public' && publicFingerprint !== undefined) await this.#store.write('catalog', nameOf(publicFingerprint, '.public'), data);
  }

  /**
   * Saves a live listing, unless this store wrote this very listing for `fingerprint` less than a
   * tenth of its TTL ago: every warm list and every serve description rewrote each server's file
   * (100 servers: 100 writes; 5,000 tools: 2 MB of JSON each time). Another process reading the
   * file sees it at most a tenth of its TTL older than before. Undefined when nothing is written.
   */
  saveListing(fingerprint: string, tools: readonly Tool[], details: SaveDetails = {}): Promise<void> | undefined {
    const now = Date.now();
    const written = this.#written.get(tools) ?? new Map<string, number>();
    const last = written.get(fingerprint);
    if (last !== undefined && now - last < (details.ttlMs ?? DEFAULT_CATALOG_TTL_MS) / 10) return undefined;
    written.set(fingerprint, now);
    this.#written.set(tools, written);
    return this.save(fingerprint, tools, details).catch((error: unknown) => {
      // A write that failed is tried again by the next listing.
      written.delete(fingerprint);
      throw error;
    });
  }

  /** The observed result types kept beside the catalog (observed-types/), as parsed JSON; undefined when none. */
  async loadObserved(fingerprint: string, signal?: AbortSignal): Promise<unknown> {
    try {
      const text = await this.#store.read('catalog', nameOf(fingerprint, '.observed'), { maxBytes: MAX_OBSERVED_BYTES, signal });
      return text === undefined ? undefined : (JSON.parse(text) as unknown);
    } catch {
      return undefined;
    }
  }

  /** A record of its own: the catalog is rewritten on every listing, observations on their own schedule. */
  async saveObserved(fingerprint: string, value: unknown): Promise<void> {
    await this.#store.write('catalog', nameOf(fingerprint, '.observed'), JSON.stringify(value));
  }
}

/** The fingerprint hashes resolved values, secrets included: never write it out as it is. */
function nameOf(fingerprint: string, suffix = ''): string {
  return `${nodeCrypto().createHash('sha256').update(`berry-mcp catalog\n${fingerprint}`).digest('hex').slice(0, 40)}${suffix}`;
}
