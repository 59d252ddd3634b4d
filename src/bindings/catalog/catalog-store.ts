/**
 * Saved catalogs: a server's tool list, saved on the target machine after a successful listing so
 * a later `list` can answer without starting the server. One file per resolved-config fingerprint
 * (a changed entry never reads an old catalog), holding only what the server listed: no config,
 * no secrets. File IO goes through the Machine (read: readFile; write: a temp file renamed over the
 * target, so a reader never sees half a file).
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import type { Machine } from '../../remote/machine/index.js';
import { replaceFile } from '../../remote/machine/replace-file.js';

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

/** The little file IO the store needs, through the Machine. */
interface CatalogFiles {
  read(path: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Replaces `path` atomically, creating its folder (mode 0700) and the file (mode 0600). */
  write(path: string, data: string): Promise<void>;
}

export class CatalogStore {
  readonly #dir: Promise<string>;
  readonly #files: CatalogFiles;
  /** When this store last wrote a live listing (the connection's cached array), by fingerprint. */
  readonly #written = new WeakMap<readonly Tool[], Map<string, number>>();

  /** `dir` may start with `~/` (the machine's home); default `$XDG_CACHE_HOME/berry/catalogs` or `~/.cache/berry/catalogs`. */
  constructor(machine: Machine, dir?: string) {
    this.#files = machineFiles(machine);
    this.#dir = resolveDir(machine, dir);
    this.#dir.catch(() => {});
  }

  /**
   * The catalog saved for this entry, else (with `publicFingerprint`) one another credential of the
   * same server saved that the server marked `public`; a `private` one never serves another.
   */
  async load(fingerprint: string, signal?: AbortSignal, publicFingerprint?: string): Promise<SavedCatalog | undefined> {
    const own = await this.#load(await this.#path(fingerprint), signal);
    if (own || publicFingerprint === undefined) return own;
    const shared = await this.#load(await this.#path(publicFingerprint, '.public'), signal);
    return shared?.cacheScope === 'public' ? shared : undefined;
  }

  async #load(path: string, signal: AbortSignal | undefined): Promise<SavedCatalog | undefined> {
    let text: string | undefined;
    try {
      text = await this.#files.read(path, signal);
    } catch {
      return undefined;
    }
    if (text === undefined || text.length > MAX_CATALOG_BYTES) return undefined;
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
    await this.#files.write(await this.#path(fingerprint), data);
    if (cacheScope === 'public' && publicFingerprint !== undefined) await this.#files.write(await this.#path(publicFingerprint, '.public'), data);
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
      const text = await this.#files.read(await this.#path(fingerprint, '.observed'), signal);
      return text === undefined || text.length > MAX_OBSERVED_BYTES ? undefined : (JSON.parse(text) as unknown);
    } catch {
      return undefined;
    }
  }

  /** A file of its own: the catalog is rewritten on every listing, observations on their own schedule. */
  async saveObserved(fingerprint: string, value: unknown): Promise<void> {
    await this.#files.write(await this.#path(fingerprint, '.observed'), JSON.stringify(value));
  }

  async #path(fingerprint: string, suffix = ''): Promise<string> {
    // The fingerprint hashes resolved values, secrets included: never write it out as it is.
    const name = createHash('sha256').update(`berry-mcp catalog\n${fingerprint}`).digest('hex').slice(0, 40);
    return `${await this.#dir}/${name}${suffix}.json`;
  }
}

async function resolveDir(machine: Machine, dir: string | undefined): Promise<string> {
  const home = await machine.homeDir();
  if (dir !== undefined) return dir === '~' ? home : dir.startsWith('~/') ? `${home}/${dir.slice(2)}` : dir;
  const xdg = (await machine.env())['XDG_CACHE_HOME'];
  return `${xdg?.startsWith('/') ? xdg : `${home}/.cache`}/berry/catalogs`;
}

/** Reads with the machine's readFile; writes a temp file (0600, in a 0700 folder) and renames it over the target. */
function machineFiles(machine: Machine): CatalogFiles {
  return {
    read: (path, signal) => machine.readFile(path, signal),
    // Through the Machine's own file calls (fs locally, SFTP over SSH): no `sh` to start per write.
    async write(path, data) {
      await machine.mkdir(path.slice(0, path.lastIndexOf('/')) || '/', 0o700);
      await replaceFile(machine, path, data, { mode: 0o600 });
    },
  };
}
