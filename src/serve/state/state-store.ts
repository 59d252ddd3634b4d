/**
 * Where serve keeps the states of 2026-07-28 runs between runs (a 2025 session keeps its own): by
 * state id, each bound to the holder that made it. The interface is what a fleet's store (issue
 * 36: Redis) implements too; MemoryStateStore keeps them in this process.
 */
import type { StateValues } from '../../runtime/index.js';

export interface StateStore {
  /** True: a new state that stays empty is not kept (a run that uses neither store nor load never touches a shared store). */
  readonly lazy?: boolean;
  /** The state under `id` when `owner` made it; undefined when it is unknown, expired, or another's (the caller cannot tell which). */
  get(id: string, owner: string): Promise<StateValues | undefined>;
  /** Keeps `state` under `id` for `owner` after a run, for the idle time from now. May evict other states to stay within its caps. */
  put(id: string, owner: string, state: StateValues): Promise<void>;
  delete(id: string): Promise<void>;
  /** Stops its timers; the states go with the process. */
  close(): void;
}

/** The caps of MemoryStateStore: an attacker who makes states without end fills nothing past them. */
export interface MemoryStateStoreOptions {
  /** How long a state is kept after its last run. @default 1800000 (30 minutes) */
  readonly idleMs?: number;
  /** States kept in all. @default 4096 */
  readonly maxStates?: number;
  /** UTF-8 bytes of every kept state's keys and values, in all. @default 268435456 (256 MiB) */
  readonly maxBytes?: number;
  /** States one holder keeps. @default 256 */
  readonly maxStatesPerOwner?: number;
  /** Bytes one holder's states hold together. @default 67108864 (64 MiB) */
  readonly maxBytesPerOwner?: number;
}

export const DEFAULT_STATE_IDLE_MS = 30 * 60_000;

interface Kept {
  readonly owner: string;
  readonly state: StateValues;
  /** state.bytes when it was last put: what the caps count. */
  bytes: number;
  expires: number;
}

interface OwnerUse {
  states: number;
  bytes: number;
}

/**
 * States in this process's memory. The least recently used go first when a cap is reached: the
 * holder's own when it is past its share, anyone's when the whole store is (each holder's share
 * being a quarter of the whole by default, one holder alone never evicts another's). An evicted or
 * expired state's id is then unknown (SERVE_STATE_UNKNOWN), as a wrong one is.
 */
export class MemoryStateStore implements StateStore {
  readonly idleMs: number;
  readonly #caps: Required<Omit<MemoryStateStoreOptions, 'idleMs'>>;
  /** In order of last use, oldest first (a Map keeps insertion order; a use moves an entry to the end). */
  readonly #kept = new Map<string, Kept>();
  readonly #owners = new Map<string, OwnerUse>();
  #bytes = 0;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: MemoryStateStoreOptions = {}) {
    this.idleMs = options.idleMs ?? DEFAULT_STATE_IDLE_MS;
    this.#caps = {
      maxStates: options.maxStates ?? 4096,
      maxBytes: options.maxBytes ?? 256 * 1024 * 1024,
      maxStatesPerOwner: options.maxStatesPerOwner ?? 256,
      maxBytesPerOwner: options.maxBytesPerOwner ?? 64 * 1024 * 1024,
    };
    // Expired states go even when nobody asks for them again.
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(60_000, Math.max(1_000, this.idleMs / 4)));
    this.#sweeper.unref();
  }

  /** States kept now and their bytes (diagnostics, tests). */
  get usage(): { readonly states: number; readonly bytes: number } {
    return { states: this.#kept.size, bytes: this.#bytes };
  }

  async get(id: string, owner: string): Promise<StateValues | undefined> {
    const kept = this.#kept.get(id);
    if (kept === undefined || kept.owner !== owner) return undefined;
    if (kept.expires <= Date.now()) {
      this.#remove(id);
      return undefined;
    }
    this.#touch(id, kept);
    return kept.state;
  }

  async put(id: string, owner: string, state: StateValues): Promise<void> {
    const old = this.#kept.get(id);
    // An id is the holder's that made it: another's put never takes it over.
    if (old !== undefined && old.owner !== owner) return;
    if (old !== undefined) this.#remove(id);
    const kept: Kept = { owner, state, bytes: state.bytes, expires: 0 };
    this.#kept.set(id, kept);
    this.#account(owner, 1, kept.bytes);
    this.#touch(id, kept);
    this.#evict(id, owner);
  }

  async delete(id: string): Promise<void> {
    this.#remove(id);
  }

  close(): void {
    clearInterval(this.#sweeper);
  }

  #touch(id: string, kept: Kept): void {
    kept.expires = Date.now() + this.idleMs;
    this.#kept.delete(id);
    this.#kept.set(id, kept);
  }

  /** Past a cap, the least recently used states other than `keep` go: `owner`'s first, for its own caps. */
  #evict(keep: string, owner: string): void {
    const use = this.#owners.get(owner)!;
    const { maxStates, maxBytes, maxStatesPerOwner, maxBytesPerOwner } = this.#caps;
    for (const [id, kept] of this.#kept) {
      if (use.states <= maxStatesPerOwner && use.bytes <= maxBytesPerOwner) break;
      if (id !== keep && kept.owner === owner) this.#remove(id);
    }
    for (const [id] of this.#kept) {
      if (this.#kept.size <= maxStates && this.#bytes <= maxBytes) break;
      if (id !== keep) this.#remove(id);
    }
  }

  #remove(id: string): void {
    const kept = this.#kept.get(id);
    if (kept === undefined) return;
    this.#kept.delete(id);
    this.#account(kept.owner, -1, -kept.bytes);
  }

  #account(owner: string, states: number, bytes: number): void {
    const use = this.#owners.get(owner) ?? { states: 0, bytes: 0 };
    use.states += states;
    use.bytes += bytes;
    this.#bytes += bytes;
    if (use.states === 0) this.#owners.delete(owner);
    else this.#owners.set(owner, use);
  }

  #sweep(): void {
    const now = Date.now();
    // Oldest first: the first one not expired ends the sweep.
    for (const [id, kept] of this.#kept) {
      if (kept.expires > now) break;
      this.#remove(id);
    }
  }
}
