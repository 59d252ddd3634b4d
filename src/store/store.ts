/**
 * Where berry-mcp keeps what outlives a process: OAuth sign-in records, saved catalogs and
 * observed types, and serve's run states. One interface, two implementations: files on the target
 * machine (file-store.ts, the default) and Redis (redis/redis-store.ts, `--store redis://…`), so a
 * fleet of replicas shares one sign-in, one catalog and every run state.
 */

/** What a record is: each area has its own names (and, in Redis, its own keys). */
export type StoreArea = 'oauth' | 'catalog' | 'state';

export interface StoreReadOptions {
  /** A value longer than this is not one berry-mcp wrote: it reads as absent, unparsed (Redis: bytes, checked before it is sent; files: characters, once read). */
  readonly maxBytes: number;
  /** Sets the record's expiry to this long from now (an idle expiry refreshed on use). */
  readonly touchMs?: number;
  readonly signal?: AbortSignal | undefined;
}

export interface StoreWriteOptions {
  /** The record expires this long after the write (states); none: kept until replaced. */
  readonly expireMs?: number;
  readonly signal?: AbortSignal | undefined;
}

export interface LeaseOptions {
  /** A lease older than this was left by a process that died holding it: it lapses. @default 30000 */
  readonly staleMs?: number;
  /** Give up waiting for another holder after this long. @default 20000 */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
}

export interface Store {
  /** `file`: the target machine's files (states in serve's memory); `redis`: a shared Redis. */
  readonly kind: 'file' | 'redis';
  /** The record `name` of `area`, as written; undefined when there is none (or it is past maxBytes). */
  read(area: StoreArea, name: string, options: StoreReadOptions): Promise<string | undefined>;
  /** Replaces the record atomically: a reader sees the old value or the new one. */
  write(area: StoreArea, name: string, text: string, options?: StoreWriteOptions): Promise<void>;
  /** Removes the record (and its lease); true when there was one. */
  remove(area: StoreArea, name: string, signal?: AbortSignal): Promise<boolean>;
  /**
   * Runs `fn` holding the record's lease, which every process sharing this store respects (a file
   * lock, or a Redis lease with an owner token): one holder at a time, released only by its owner.
   */
  withLease<T>(area: StoreArea, name: string, fn: () => Promise<T>, options?: LeaseOptions): Promise<T>;
  /** Ends the store's connection (Redis); files need nothing. */
  close(): Promise<void>;
}
