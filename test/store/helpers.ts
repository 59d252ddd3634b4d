/** Shared by the store tests: a fleet key in this process's environment, and Redis stores on a test Redis. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisStore, selectRedis } from '../../src/store/index.js';
import { type RedisServer, startRedis } from '../support/redis.js';

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

export interface RedisSuite {
  readonly redis: RedisServer;
  /** A plain client on it (rawClient). */
  readonly raw: Redis;
  /** The fleet key the suite put in the environment. */
  readonly key: string;
  /** A RedisStore on the suite's Redis, closed after the test. */
  open(prefix?: string, key?: string): RedisStore;
  /** The same on another URL (another server, a wrong password). */
  openAt(url: string): RedisStore;
}

/** A describe block's Redis: started before it with a raw client and a fleet key, stores closed after each test, all stopped after it. */
export function useRedisSuite(): RedisSuite {
  let redis: RedisServer | undefined;
  let raw: Redis | undefined;
  let fleetKey: ReturnType<typeof useStoreKey> | undefined;
  const stores: RedisStore[] = [];
  const kept = (store: RedisStore): RedisStore => {
    stores.push(store);
    return store;
  };
  before(async () => {
    redis = await startRedis();
    raw = rawClient(redis.url);
    fleetKey = useStoreKey();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  after(async () => {
    fleetKey?.restore();
    raw?.disconnect();
    await redis?.stop();
  });
  return {
    get redis() {
      return redis!;
    },
    get raw() {
      return raw!;
    },
    get key() {
      return fleetKey!.key;
    },
    open: (prefix, key) => kept(redisStore(redis!.url, prefix, key)),
    openAt: (url) => kept(redisStore(url)),
  };
}
