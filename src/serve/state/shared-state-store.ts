/**
 * 2026-07-28 run states in a fleet's shared store (Redis): any replica continues a state id. One
 * record per state, named by a hash of its id, holding a hash of its holder and its keys' JSON;
 * its idle expiry is set on every write and pushed back on every read (PEXPIRE), so Redis drops
 * it by itself. A record is read bounded and checked again, key by key, as a store() would be:
 * what another client of that Redis wrote is not trusted.
 */
import { createHash } from 'node:crypto';
import { StateValues } from '../../runtime/index.js';
import type { Store } from '../../store/index.js';
import { DEFAULT_STATE_IDLE_MS, type StateStore } from './state-store.js';

/** A state is at most 4 MiB of keys and values (DEFAULT_STATE_LIMITS); its JSON escapes may double that. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

interface Record {
  readonly owner: string;
  readonly entries: readonly (readonly [string, string])[];
}

export class SharedStateStore implements StateStore {
  readonly idleMs: number;
  readonly lazy = true;
  readonly #store: Store;

  constructor(store: Store, idleMs = DEFAULT_STATE_IDLE_MS) {
    this.#store = store;
    this.idleMs = idleMs;
  }

  async get(id: string, owner: string): Promise<StateValues | undefined> {
    const record = await this.#read(id, this.idleMs);
    if (record?.owner !== hash('owner', owner)) return undefined;
    try {
      const state = new StateValues();
      for (const [key, json] of record.entries) {
        JSON.parse(json);
        state.setText(key, json);
      }
      return state;
    } catch {
      return undefined;
    }
  }

  async put(id: string, owner: string, state: StateValues): Promise<void> {
    const ownerHash = hash('owner', owner);
    const old = await this.#read(id, 0);
    // An id is the holder's that made it: another's put never takes it over.
    if (old !== undefined && old.owner !== ownerHash) return;
    const record: Record = { owner: ownerHash, entries: state.snapshot().entries };
    await this.#store.write('state', hash('state', id), JSON.stringify(record), { expireMs: this.idleMs });
  }

  async delete(id: string): Promise<void> {
    await this.#store.remove('state', hash('state', id));
  }

  /** The host closes the store. */
  close(): void {}

  async #read(id: string, touchMs: number): Promise<Record | undefined> {
    const text = await this.#store.read('state', hash('state', id), { maxBytes: MAX_RECORD_BYTES, ...(touchMs > 0 ? { touchMs } : {}) });
    if (text === undefined) return undefined;
    try {
      const value = JSON.parse(text) as Partial<Record>;
      if (typeof value.owner !== 'string' || !Array.isArray(value.entries)) return undefined;
      const entries = value.entries.filter(
        (entry): entry is [string, string] => Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string',
      );
      return entries.length === value.entries.length ? { owner: value.owner, entries } : undefined;
    } catch {
      return undefined;
    }
  }
}

/** State ids are bearer secrets and holders may be derived from tokens: neither is written as it is. */
function hash(kind: string, text: string): string {
  return createHash('sha256').update(`berry-mcp ${kind}\n${text}`).digest('hex');
}
