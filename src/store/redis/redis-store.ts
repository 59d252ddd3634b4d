/**
 * The Redis store: every record under `<prefix><area>:<name>`, its lease under
 * `<prefix><area>-lease:<name>`. Sign-in records are sealed (seal.ts) before they leave the
 * process; reads are bounded in Redis itself (a script checks STRLEN before GET), so a huge value
 * someone else wrote is never sent, let alone parsed.
 */
import { nodeCrypto } from '../../common/lazy-node.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { BerryError } from '../../common/errors.js';
import type { LeaseOptions, Store, StoreArea, StoreReadOptions, StoreWriteOptions } from '../store.js';
import { RedisConnection } from './connection.js';
import { releaseLease, renewLease, takeLease } from './lease.js';
import { open, seal } from './seal.js';
import type { RedisSelection } from './selection.js';

// Returns {} when there is no string there, {length} past the bound, {length, value} otherwise (touching its expiry when asked).
const BOUNDED_GET = `
if redis.call('TYPE', KEYS[1]).ok ~= 'string' then return {} end
local n = redis.call('STRLEN', KEYS[1])
if n > tonumber(ARGV[1]) then return {n} end
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {n, redis.call('GET', KEYS[1])}`;

const POLL_MS = 50;

export class RedisStore implements Store {
  readonly kind = 'redis';
  readonly prefix: string;
  readonly connection: RedisConnection;
  readonly #key: RedisSelection['key'];

  constructor(selection: RedisSelection) {
    this.prefix = selection.prefix;
    this.#key = selection.key;
    this.connection = new RedisConnection(selection);
  }

  keyOf(area: StoreArea, name: string): string {
    return `${this.prefix}${area}:${name}`;
  }

  leaseKeyOf(area: StoreArea, name: string): string {
    return `${this.prefix}${area}-lease:${name}`;
  }

  async read(area: StoreArea, name: string, options: StoreReadOptions): Promise<string | undefined> {
    const key = this.keyOf(area, name);
    // A sealed record is longer than its text: base64 of it plus the IV and tag.
    const maxBytes = area === 'oauth' ? Math.ceil((options.maxBytes + 28) / 3) * 4 + 16 : options.maxBytes;
    const reply = (await this.connection.run((client) => client.eval(BOUNDED_GET, 1, key, String(maxBytes), String(options.touchMs ?? 0)), options.signal)) as [
      number?,
      string?,
    ];
    const value = reply[1];
    if (typeof value !== 'string') return undefined;
    return area === 'oauth' ? open(this.#key, key, value) : value;
  }

  async write(area: StoreArea, name: string, text: string, options: StoreWriteOptions = {}): Promise<void> {
    const key = this.keyOf(area, name);
    const value = area === 'oauth' ? seal(this.#key, key, text) : text;
    const expireMs = options.expireMs;
    await this.connection.run(
      (client) => (expireMs === undefined ? client.set(key, value) : client.set(key, value, 'PX', Math.max(1, Math.ceil(expireMs)))),
      options.signal,
    );
  }

  async remove(area: StoreArea, name: string, signal?: AbortSignal): Promise<boolean> {
    const removed = await this.connection.run((client) => client.del(this.keyOf(area, name)), signal);
    await this.connection.run((client) => client.del(this.leaseKeyOf(area, name)), signal).catch(() => {});
    return removed > 0;
  }

  async withLease<T>(area: StoreArea, name: string, fn: () => Promise<T>, options: LeaseOptions = {}): Promise<T> {
    const key = this.leaseKeyOf(area, name);
    const ttlMs = options.staleMs ?? 30_000;
    const deadline = Date.now() + (options.waitMs ?? 20_000);
    const owner = nodeCrypto().randomBytes(16).toString('hex');
    while (!(await this.connection.run((client) => takeLease(client, key, owner, ttlMs), options.signal))) {
      if (Date.now() > deadline) {
        throw new BerryError('MCP_AUTH_REQUIRED', `Another process has held the sign-in lease ${key} in the shared store for too long; retry.`);
      }
      await sleep(POLL_MS + Math.floor(Math.random() * POLL_MS), undefined, options.signal ? { signal: options.signal } : {});
    }
    // A slow refresh keeps its lease: renewed a few times per lifetime while it runs.
    const renewal = setInterval(
      () => {
        this.connection.run((client) => renewLease(client, key, owner, ttlMs)).catch(() => {});
      },
      Math.max(100, Math.floor(ttlMs / 3)),
    );
    renewal.unref();
    try {
      return await fn();
    } finally {
      clearInterval(renewal);
      // Not released (Redis away): it lapses after ttlMs.
      await this.connection.run((client) => releaseLease(client, key, owner)).catch(() => {});
    }
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
