/**
 * Sign-in state per server, kept as one JSON file per server URL on the target machine: the
 * discovery result, the registered client and the tokens (each stamped by the SDK with the issuer
 * that produced it). Files are 0600 in a 0700 directory and replaced atomically (temp + rename).
 * A directory or file this user did not make is refused (store-safety.ts); a temporary file is
 * created exclusively (O_EXCL, which never follows a symlink) and renamed over the record.
 */
import { createHash } from 'node:crypto';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/client';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import type { Machine } from '../remote/machine/index.js';
import { replaceFile } from '../remote/machine/replace-file.js';
import { withFileLock, type LockOptions } from './lock.js';
import { checkStorePath, TOKEN_DIR_MODE, TOKEN_FILE_MODE } from './store-safety.js';

export { TOKEN_DIR_MODE, TOKEN_FILE_MODE } from './store-safety.js';

/** Tokens as stored: what the server sent plus when it was received (to know when they expire). */
export type StoredTokens = OAuthTokens & { readonly issuer?: string; readonly obtained_at: number };

export interface SignInRecord {
  readonly serverUrl: string;
  readonly discovery?: OAuthDiscoveryState;
  readonly client?: OAuthClientInformationMixed;
  readonly tokens?: StoredTokens;
}

/** The record without one part ('all': with none of them), as the SDK's invalidateCredentials asks. */
export function withoutPart(record: SignInRecord, part: 'all' | 'client' | 'tokens' | 'discovery'): SignInRecord {
  return {
    serverUrl: record.serverUrl,
    ...(part === 'client' || part === 'all' || !record.client ? {} : { client: record.client }),
    ...(part === 'tokens' || part === 'all' || !record.tokens ? {} : { tokens: record.tokens }),
    ...(part === 'discovery' || part === 'all' || !record.discovery ? {} : { discovery: record.discovery }),
  };
}

/** Where tokens live: `tokenDir`, else `$XDG_CONFIG_HOME/berry/oauth`, else `~/.config/berry/oauth`. */
export async function resolveTokenDir(machine: Machine, tokenDir: string | undefined, signal?: AbortSignal): Promise<string> {
  if (tokenDir !== undefined) return tokenDir;
  const xdg = (await machine.env(signal))['XDG_CONFIG_HOME'];
  const base = xdg?.startsWith('/') ? xdg : `${await machine.homeDir(signal)}/.config`;
  return `${base}/berry/oauth`;
}

/** The file name for a server URL: a hash, so the URL (which may carry a secret) is not in a path. */
export function recordName(serverUrl: string): string {
  return createHash('sha256').update(serverUrl).digest('hex').slice(0, 32);
}

export class TokenStore {
  readonly machine: Machine;
  readonly dir: string;
  readonly serverUrl: string;
  readonly path: string;
  // Writes from one process go one at a time, so a later update never loses an earlier one.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(machine: Machine, dir: string, serverUrl: string) {
    this.machine = machine;
    this.dir = dir;
    this.serverUrl = serverUrl;
    this.path = `${dir}/${recordName(serverUrl)}.json`;
  }

  get lockPath(): string {
    return `${this.path}.lock`;
  }

  /** The record, or an empty one when there is none (or it is unreadable: then sign in again). */
  async read(signal?: AbortSignal): Promise<SignInRecord> {
    const present = (await checkStorePath(this.machine, this.dir, 'directory', signal)) && (await checkStorePath(this.machine, this.path, 'file', signal));
    const text = present ? await this.machine.readFile(this.path, signal) : undefined;
    if (text === undefined) return { serverUrl: this.serverUrl };
    try {
      const parsed = JSON.parse(text) as SignInRecord;
      if (parsed && typeof parsed === 'object' && parsed.serverUrl === this.serverUrl) return parsed;
    } catch {
      // A damaged file is treated as absent and replaced by the next write.
    }
    return { serverUrl: this.serverUrl };
  }

  /** Read, change, write atomically. */
  update(change: (record: SignInRecord) => SignInRecord, signal?: AbortSignal): Promise<SignInRecord> {
    const next = this.#queue.then(async () => {
      const record = change(await this.read(signal));
      await this.#write(record, signal);
      return record;
    });
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Runs `fn` holding the record's cross-process lock, in the (checked) token directory. */
  async withLock<T>(fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
    await this.#ensureDir(options.signal);
    return withFileLock(this.machine, this.lockPath, fn, options);
  }

  async #ensureDir(signal?: AbortSignal): Promise<void> {
    await this.machine.mkdir(this.dir, TOKEN_DIR_MODE, signal);
    await checkStorePath(this.machine, this.dir, 'directory', signal);
  }

  async #write(record: SignInRecord, signal?: AbortSignal): Promise<void> {
    await this.#ensureDir(signal);
    await replaceFile(this.machine, this.path, `${JSON.stringify(record, null, 2)}\n`, { mode: TOKEN_FILE_MODE, ...(signal ? { signal } : {}) });
  }

  /** Signs out: removes the record (tokens and registered client). */
  async remove(signal?: AbortSignal): Promise<boolean> {
    if (!(await checkStorePath(this.machine, this.dir, 'directory', signal))) return false;
    // What is there is only unlinked, never read: a link is removed, not followed.
    const existed = (await this.machine.fileInfo(this.path, signal)) !== undefined;
    await this.machine.unlink(this.path, signal);
    await this.machine.unlink(this.lockPath, signal).catch(() => {});
    return existed;
  }
}
