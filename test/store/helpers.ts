/** Shared by the store tests: a fleet key in this process's environment, and Redis stores on a test Redis. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisStore, selectRedis } from '../../src/store/index.js';

/** Sets BERRY_STORE_KEY (children inherit it) for the suite; the returned function puts back what was there. */
export function useStoreKey(key = randomBytes(32).toString('base64')): { key: string; restore: () => void } {
  const saved = process.env['BERRY_STORE_KEY'];
  process.env['BERRY_STORE_KEY'] = key;
  return {
    key,
    restore: () => {
      if (saved === undefined) delete process.env['BERRY_STORE_KEY'];
      else process.env['BERRY_STORE_KEY'] = saved;
    },
  };
}

/** A RedisStore on `url` (the key from the environment unless given). */
export function redisStore(url: string, prefix?: string, key?: string): RedisStore {
  const env = key === undefined ? process.env : { ...process.env, BERRY_STORE_KEY: key };
  return new RedisStore(selectRedis({ store: url, ...(prefix === undefined ? {} : { storePrefix: prefix }) }, env)!);
}

/** A plain client, for what another client of the fleet's Redis (or an attacker with access) sees and writes. */
export function rawClient(url: string): Redis {
  return new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
}
