/**
 * A lease in Redis: `SET key owner NX PX ttl`, so one holder at a time across every process that
 * shares the store, lapsing by itself if its holder dies. Renewed and released only by its owner
 * (compare-and-expire, compare-and-delete in one script each: another holder's lease is never touched).
 */
import type { Redis } from 'ioredis';

const RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/** True when `owner` now holds the lease `key` for `ttlMs`. */
export async function takeLease(client: Redis, key: string, owner: string, ttlMs: number): Promise<boolean> {
  return (await client.set(key, owner, 'PX', ttlMs, 'NX')) === 'OK';
}

/** Extends `owner`'s lease; false when it is not (any more) `owner`'s. */
export async function renewLease(client: Redis, key: string, owner: string, ttlMs: number): Promise<boolean> {
  return Number(await client.eval(RENEW, 1, key, owner, String(ttlMs))) === 1;
}

/** Releases the lease if `owner` holds it; false (and nothing changed) otherwise. */
export async function releaseLease(client: Redis, key: string, owner: string): Promise<boolean> {
  return Number(await client.eval(RELEASE, 1, key, owner)) === 1;
}
