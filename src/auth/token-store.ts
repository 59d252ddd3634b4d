/**
 * Sign-in state per server, one record per server URL in the store (src/store): the discovery
 * result, the registered client and the tokens (each stamped by the SDK with the issuer that
 * produced it). With the file store, a 0600 file in a checked 0700 directory on the target
 * machine; with Redis, a record sealed with BERRY_STORE_KEY. Either way written atomically.
 */
import { nodeCrypto } from '../common/lazy-node.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/client';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import type { Machine } from '../remote/machine/index.js';
import { FileStore, type LeaseOptions, type Store } from '../store/index.js';

/** Tokens as stored: what the server sent plus when it was received (to know when they expire). */
export type StoredTokens = OAuthTokens & { readonly issuer?: string; readonly obtained_at: number };

export interface SignInRecord {
  readonly serverUrl: string;
  readonly discovery?: OAuthDiscoveryState;
  readonly client?: OAuthClientInformationMixed;
  readonly tokens?: StoredTokens;
}

/** A record larger than this is not one berry-mcp wrote: read as none. */
const MAX_RECORD_BYTES = 1024 * 1024;

/** The record without one part ('all': with none of them), as the SDK's invalidateCredentials asks. */
export function withoutPart(record: SignInRecord, part: 'all' | 'client' | 'tokens' | 'discovery'): SignInRecord {
  return {
    serverUrl: record.serverUrl,
    ...(part === 'client' || part === 'all' || !record.client ? {} : { client: record.client }),
    ...(part === 'tokens' || part === 'all' || !record.tokens ? {} : { tokens: record.tokens }),
    ...(part === 'discovery' || part === 'all' || !record.discovery ? {} : { discovery: record.discovery }),
  };
}

/** The record's name for a server URL: a hash, so the URL (which may carry a secret) is not in a path or key. */
export function recordName(serverUrl: string): string {
  return nodeCrypto().createHash('sha256').update(serverUrl).digest('hex').slice(0, 32);
}

export class TokenStore {
  readonly store: Store;
  readonly serverUrl: string;
  readonly name: string;
  // Writes from one process go one at a time, so a later update never loses an earlier one.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(store: Store, serverUrl: string) {
    this.store = store;
    this.serverUrl = serverUrl;
    this.name = recordName(serverUrl);
  }

  /** The file store's record of `serverUrl` in `dir`. */
  static inDir(machine: Machine, dir: string, serverUrl: string): TokenStore {
    return new TokenStore(new FileStore(machine, { tokenDir: dir }), serverUrl);
  }

  /** The record, or an empty one when there is none (or it is damaged: then sign in again). */
  async read(signal?: AbortSignal): Promise<SignInRecord> {
    const text = await this.store.read('oauth', this.name, { maxBytes: MAX_RECORD_BYTES, signal });
    if (text === undefined) return { serverUrl: this.serverUrl };
    try {
      const parsed = JSON.parse(text) as SignInRecord;
      if (parsed && typeof parsed === 'object' && parsed.serverUrl === this.serverUrl) return parsed;
    } catch {
      // A damaged record is treated as absent and replaced by the next write.
    }
    return { serverUrl: this.serverUrl };
  }

  /** Read, change, write atomically. */
  update(change: (record: SignInRecord) => SignInRecord, signal?: AbortSignal): Promise<SignInRecord> {
    const next = this.#queue.then(async () => {
      const record = change(await this.read(signal));
      await this.store.write('oauth', this.name, `${JSON.stringify(record, null, 2)}\n`, { signal });
      return record;
    });
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Runs `fn` holding the record's lease (a lock file, or a lease in Redis) across processes. */
  withLock<T>(fn: () => Promise<T>, options: LeaseOptions = {}): Promise<T> {
    return this.store.withLease('oauth', this.name, fn, options);
  }

  /** Signs out: removes the record (tokens and registered client). */
  remove(signal?: AbortSignal): Promise<boolean> {
    return this.store.remove('oauth', this.name, signal);
  }
}
