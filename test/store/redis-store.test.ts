// The Redis store: sealed sign-in records, the key check, prefixes, and run states with their idle expiry.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TokenStore } from '../../src/auth/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { createHost } from '../../src/host.js';
import { StateValues } from '../../src/runtime/index.js';
import { SharedStateStore } from '../../src/serve/state/shared-state-store.js';
import { useRedisSuite } from './helpers.js';

const SERVER = 'https://mcp.example.com/mcp';
const record = (access: string) => (r: { serverUrl: string }) => ({
  ...r,
  tokens: { access_token: access, refresh_token: `${access}-refresh`, token_type: 'bearer', obtained_at: 1 },
});

describe('store: Redis', function () {
  this.timeout(60_000);
  const s = useRedisSuite();
  const open = s.open;

  it('keeps sign-in records encrypted at rest: no token text in Redis, and they read back', async () => {
    const access = `at-${randomBytes(12).toString('hex')}`;
    await new TokenStore(open(), SERVER).update(record(access));
    const keys = await s.raw.keys('berry:oauth:*');
    assert.equal(keys.length, 1);
    assert.ok(!keys[0]!.includes('example'), 'the server URL is not in the key');
    const stored = (await s.raw.get(keys[0]!))!;
    assert.ok(stored.startsWith('berry.v1.'), stored.slice(0, 20));
    for (const plain of [access, 'refresh', 'mcp.example.com', 'bearer']) assert.ok(!stored.includes(plain), `${plain} is not in the stored value`);
    // Another process of the fleet (another connection, same key) reads it.
    assert.equal((await new TokenStore(open(), SERVER).read()).tokens?.access_token, access);
    // Each write has its own IV: the same record sealed twice differs.
    await new TokenStore(open(), SERVER).update((r) => r);
    assert.notEqual(await s.raw.get(keys[0]!), stored);
  });

  it('a record read with another key fails to decrypt with BERRY_STORE_RECORD_INVALID', async () => {
    await new TokenStore(open(), SERVER).update(record('at-1'));
    const other = open(undefined, randomBytes(32).toString('hex'));
    await assert.rejects(new TokenStore(other, SERVER).read(), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'BERRY_STORE_RECORD_INVALID', String(error));
      assert.match(error.message, /BERRY_STORE_KEY/);
      return true;
    });
  });

  it('refuses to start without BERRY_STORE_KEY, or with one that is not 32 bytes, naming it and the openssl command', () => {
    const saved = process.env['BERRY_STORE_KEY'];
    try {
      for (const value of [undefined, '', randomBytes(16).toString('base64'), 'not a key at all!']) {
        if (value === undefined) delete process.env['BERRY_STORE_KEY'];
        else process.env['BERRY_STORE_KEY'] = value;
        assert.throws(
          () => createHost({ store: s.redis.url }),
          (error: unknown) =>
            isBerryError(error) &&
            error.code === 'BERRY_STORE_KEY_INVALID' &&
            /BERRY_STORE_KEY/.test(error.message) &&
            /openssl rand -base64 32/.test(error.message),
        );
      }
      // Hex works as well as base64.
      process.env['BERRY_STORE_KEY'] = randomBytes(32).toString('hex');
      void createHost({ store: s.redis.url, warmIsolates: 0 }).close();
    } finally {
      process.env['BERRY_STORE_KEY'] = saved;
    }
  });

  it('keeps fleets apart by prefix: one does not see the other’s records', async () => {
    await new TokenStore(open('fleet-a:'), SERVER).update(record('at-a'));
    await new TokenStore(open('fleet-b:'), SERVER).update(record('at-b'));
    assert.equal((await new TokenStore(open('fleet-a:'), SERVER).read()).tokens?.access_token, 'at-a');
    assert.equal((await new TokenStore(open('fleet-b:'), SERVER).read()).tokens?.access_token, 'at-b');
    assert.equal((await new TokenStore(open('fleet-c:'), SERVER).read()).tokens, undefined);
    assert.equal((await s.raw.keys('fleet-a:*')).length, 1);
    await open('fleet-c:').write('catalog', 'x', 'c');
    assert.equal(await open('fleet-a:').read('catalog', 'x', { maxBytes: 100 }), undefined);
  });

  it('keeps a run state for its idle time from its last use, for its holder only, then Redis drops it', async () => {
    const states = new SharedStateStore(open(), 600);
    const id = randomBytes(32).toString('base64url');
    const state = new StateValues();
    state.set('answer', { n: 42 });
    await states.put(id, 'holder-a', state);
    const elsewhere = new SharedStateStore(open(), 600);
    assert.deepEqual((await elsewhere.get(id, 'holder-a'))?.get('answer'), { n: 42 }, 'another replica reads it');
    assert.equal(await elsewhere.get(id, 'holder-b'), undefined, 'another holder does not');
    // Another holder's put does not take the id over.
    await elsewhere.put(id, 'holder-b', new StateValues());
    assert.deepEqual((await states.get(id, 'holder-a'))?.get('answer'), { n: 42 });
    // Each use pushes the expiry back.
    for (let i = 0; i < 3; i++) {
      await sleep(300);
      assert.ok(await states.get(id, 'holder-a'), `still there after ${(i + 1) * 300} ms of use`);
    }
    const keys = await s.raw.keys('berry:state:*');
    assert.equal(keys.length, 1);
    assert.ok(!keys[0]!.includes(id), 'the state id is not the key');
    const ttl = await s.raw.pttl(keys[0]!);
    assert.ok(ttl > 0 && ttl <= 600, `PTTL ${ttl}`);
    await sleep(800);
    assert.equal(await states.get(id, 'holder-a'), undefined, 'gone once idle');
    assert.equal(await s.raw.exists(keys[0]!), 0);
  });
});
