/**
 * The store layer (store.ts): where sign-in records, saved catalogs, observed types and run
 * states are kept, in files on the target machine or in a Redis shared by a fleet.
 */
import type { Machine } from '../remote/machine/index.js';
import { FileStore, type FileStoreOptions } from './file/file-store.js';
import { RedisStore } from './redis/redis-store.js';
import { selectRedis, type StoreChoice } from './redis/selection.js';
import type { Store } from './store.js';

export type { LeaseOptions, Store, StoreArea, StoreReadOptions, StoreWriteOptions } from './store.js';
export { FileStore, resolveTokenDir, type FileStoreOptions } from './file/file-store.js';
export { withFileLock, type LockOptions } from './file/lock.js';
export { checkStorePath, TOKEN_DIR_MODE, TOKEN_FILE_MODE } from './file/store-safety.js';
export { RedisStore } from './redis/redis-store.js';
export { DEFAULT_STORE_PREFIX, selectRedis, storeKey, type RedisSelection, type StoreChoice } from './redis/selection.js';

/** The store `choice` names: a RedisStore (not connected until first used), else the machine's files. Throws a typed error for a bad choice or key. */
export function openStore(machine: Machine, choice: StoreChoice, files: FileStoreOptions = {}): Store {
  const redis = selectRedis(choice);
  return redis ? new RedisStore(redis) : new FileStore(machine, files);
}
