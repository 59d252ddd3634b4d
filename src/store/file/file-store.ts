/**
 * The default store: files on the target machine, as berry-mcp always kept them. Sign-in records
 * are 0600 files in a checked 0700 directory (store-safety.ts), guarded by an O_EXCL lock file
 * (lock.ts); catalogs are 0600 files in a 0700 folder. Every write is a temp file renamed over the
 * record. Run states are not kept in files: serve keeps them in its memory (MemoryStateStore).
 */
import type { Machine } from '../../remote/machine/index.js';
import { replaceFile } from '../../remote/machine/replace-file.js';
import type { LeaseOptions, Store, StoreArea, StoreReadOptions, StoreWriteOptions } from '../store.js';
import { withFileLock } from './lock.js';
import { checkStorePath, TOKEN_DIR_MODE, TOKEN_FILE_MODE } from './store-safety.js';

export interface FileStoreOptions {
  /** Sign-in records. @default '$XDG_CONFIG_HOME/berry/oauth' else '~/.config/berry/oauth' */
  readonly tokenDir?: string | undefined;
  /** Saved catalogs; may start with `~/`. @default '$XDG_CACHE_HOME/berry/catalogs' else '~/.cache/berry/catalogs' */
  readonly catalogDir?: string | undefined;
}

/** Where tokens live: `tokenDir`, else `$XDG_CONFIG_HOME/berry/oauth`, else `~/.config/berry/oauth`. */
export async function resolveTokenDir(machine: Machine, tokenDir: string | undefined, signal?: AbortSignal): Promise<string> {
  if (tokenDir !== undefined) return tokenDir;
  const xdg = (await machine.env(signal))['XDG_CONFIG_HOME'];
  const base = xdg?.startsWith('/') ? xdg : `${await machine.homeDir(signal)}/.config`;
  return `${base}/berry/oauth`;
}

async function resolveCatalogDir(machine: Machine, dir: string | undefined): Promise<string> {
  const home = await machine.homeDir();
  if (dir !== undefined) return dir === '~' ? home : dir.startsWith('~/') ? `${home}/${dir.slice(2)}` : dir;
  const xdg = (await machine.env())['XDG_CACHE_HOME'];
  return `${xdg?.startsWith('/') ? xdg : `${home}/.cache`}/berry/catalogs`;
}

export class FileStore implements Store {
  readonly kind = 'file';
  readonly machine: Machine;
  readonly #options: FileStoreOptions;
  #tokenDir: Promise<string> | undefined;
  #catalogDir: Promise<string> | undefined;

  constructor(machine: Machine, options: FileStoreOptions = {}) {
    this.machine = machine;
    this.#options = options;
  }

  /** The file of a record (`name` is already a hash: no secret of a URL or config is in a path). */
  async pathOf(area: StoreArea, name: string, signal?: AbortSignal): Promise<string> {
    return `${await this.#dir(area, signal)}/${name}.json`;
  }

  async read(area: StoreArea, name: string, options: StoreReadOptions): Promise<string | undefined> {
    const { signal } = options;
    const path = await this.pathOf(area, name, signal);
    if (area === 'oauth') {
      const dir = await this.#dir(area, signal);
      if (!(await checkStorePath(this.machine, dir, 'directory', signal)) || !(await checkStorePath(this.machine, path, 'file', signal))) return undefined;
    }
    const text = await this.machine.readFile(path, signal);
    return text === undefined || text.length > options.maxBytes ? undefined : text;
  }

  async write(area: StoreArea, name: string, text: string, options: StoreWriteOptions = {}): Promise<void> {
    const { signal } = options;
    const dir = await this.#ensureDir(area, signal);
    const mode = area === 'oauth' ? TOKEN_FILE_MODE : 0o600;
    await replaceFile(this.machine, `${dir}/${name}.json`, text, { mode, ...(signal ? { signal } : {}) });
  }

  async remove(area: StoreArea, name: string, signal?: AbortSignal): Promise<boolean> {
    const dir = await this.#dir(area, signal);
    if (area === 'oauth' && !(await checkStorePath(this.machine, dir, 'directory', signal))) return false;
    const path = `${dir}/${name}.json`;
    // What is there is only unlinked, never read: a link is removed, not followed.
    const existed = (await this.machine.fileInfo(path, signal)) !== undefined;
    await this.machine.unlink(path, signal);
    await this.machine.unlink(`${path}.lock`, signal).catch(() => {});
    return existed;
  }

  async withLease<T>(area: StoreArea, name: string, fn: () => Promise<T>, options: LeaseOptions = {}): Promise<T> {
    const dir = await this.#ensureDir(area, options.signal);
    return withFileLock(this.machine, `${dir}/${name}.json.lock`, fn, options);
  }

  async close(): Promise<void> {}

  async #ensureDir(area: StoreArea, signal: AbortSignal | undefined): Promise<string> {
    const dir = await this.#dir(area, signal);
    await this.machine.mkdir(dir, TOKEN_DIR_MODE, signal);
    if (area === 'oauth') await checkStorePath(this.machine, dir, 'directory', signal);
    return dir;
  }

  #dir(area: StoreArea, signal: AbortSignal | undefined): Promise<string> {
    if (area === 'oauth')
      return (this.#tokenDir ??= remember(resolveTokenDir(this.machine, this.#options.tokenDir, signal), () => (this.#tokenDir = undefined)));
    if (area === 'catalog')
      return (this.#catalogDir ??= remember(resolveCatalogDir(this.machine, this.#options.catalogDir), () => (this.#catalogDir = undefined)));
    return Promise.reject(new TypeError('run states are kept in serve memory with the file store, not in files'));
  }
}

/** A resolved directory is kept; a failed resolution (a machine not reachable yet) is tried again next time. */
function remember(dir: Promise<string>, forget: () => void): Promise<string> {
  dir.catch(forget);
  return dir;
}
