// The cheapest attacks on the shared store: a sealed record moved to another key, a lease released by
// someone who does not hold it, the URL's password and BERRY_STORE_KEY looked for in error text, and a
// huge value written into Redis by another client.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { recordName, TokenStore } from '../../src/auth/index.js';
import { CatalogStore } from '../../src/bindings/catalog/catalog-store.js';
import { isBerryError } from '../../src/common/errors.js';
import { createHost } from '../../src/host.js';
import { releaseLease } from '../../src/store/redis/lease.js';
import { berry } from '../support/berry-cli.js';
import { closedPort } from '../support/network.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { useRedisSuite } from '../store/helpers.js';

const A = 'https://a.example.com/mcp';
const B = 'https://b.example.com/mcp';
const PASSWORD = 'pw-attack-4f1e9a27c3';

describe('attacks on the shared store', function () {
  this.timeout(120_000);
  const s = useRedisSuite();
  const open = s.open;

  it('a sealed record copied to another server’s key, or another fleet’s prefix, does not decrypt there', async () => {
    await new TokenStore(open(), A).update((r) => ({ ...r, tokens: { access_token: 'at-a', token_type: 'bearer', obtained_at: 1 } }));
    const sealed = (await s.raw.get(`berry:oauth:${recordName(A)}`))!;
    await s.raw.set(`berry:oauth:${recordName(B)}`, sealed);
    await s.raw.set(`other:oauth:${recordName(A)}`, sealed);
    for (const [store, server] of [
      [open(), B],
      [open('other:'), A],
    ] as const) {
      await assert.rejects(new TokenStore(store, server).read(), (error: unknown) => isBerryError(error) && error.code === 'BERRY_STORE_RECORD_INVALID');
    }
    // A flipped byte fails the same way.
    const body = Buffer.from(sealed.slice('berry.v1.'.length), 'base64');
    body[body.length - 1]! ^= 1;
    await s.raw.set(`berry:oauth:${recordName(A)}`, `berry.v1.${body.toString('base64')}`);
    await assert.rejects(new TokenStore(open(), A).read(), (error: unknown) => isBerryError(error) && error.code === 'BERRY_STORE_RECORD_INVALID');
  });

  it('a lease is released only by its owner', async () => {
    const store = open();
    const key = store.leaseKeyOf('oauth', 'x');
    await store.withLease('oauth', 'x', async () => {
      const owner = (await s.raw.get(key))!;
      assert.ok(owner.length >= 32, 'the owner is a random token');
      assert.equal(await releaseLease(s.raw, key, 'not-the-owner'), false);
      assert.equal(await s.raw.get(key), owner, 'still held by its owner');
      await assert.rejects(
        open().withLease('oauth', 'x', async () => 'taken', { waitMs: 300 }),
        (error: unknown) => isBerryError(error) && error.code === 'MCP_AUTH_REQUIRED',
      );
    });
    assert.equal(await s.raw.exists(key), 0, 'released by its owner');
  });

  it('neither the store URL’s password nor BERRY_STORE_KEY appears in an error', async () => {
    const keyText = s.key;
    const keyHex = Buffer.from(keyText, 'base64').toString('hex');
    const secrets = [PASSWORD, keyText, keyHex];
    const clean = (text: string): void => {
      for (const secret of secrets) assert.ok(!text.includes(secret), `a secret is in: ${text}`);
    };
    // Nothing listening; and a real Redis that wants another password.
    await s.raw.config('SET', 'requirepass', 'the-real-password');
    try {
      for (const url of [`redis://:${PASSWORD}@127.0.0.1:${await closedPort()}/0`, `redis://:${PASSWORD}@127.0.0.1:${s.redis.port}/0`]) {
        const store = s.openAt(url);
        const t0 = Date.now();
        const error = await store.read('catalog', 'x', { maxBytes: 10 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(isBerryError(error) && error.code === 'BERRY_STORE_UNAVAILABLE', String(error));
        assert.ok(Date.now() - t0 < 5_000);
        clean(`${error.message}\n${error.stack}`);
        assert.match(error.message, /redis:\/\/127\.0\.0\.1:\d+\/0/, 'the URL is named, without its password');
      }
    } finally {
      await s.raw.config('SET', 'requirepass', '');
    }
    // A key of the wrong size.
    const shortKey = randomBytes(20).toString('base64');
    secrets.push(shortKey);
    const saved = process.env['BERRY_STORE_KEY'];
    process.env['BERRY_STORE_KEY'] = shortKey;
    try {
      assert.throws(
        () => createHost({ store: `redis://:${PASSWORD}@127.0.0.1:1/0` }),
        (error: unknown) => {
          assert.ok(isBerryError(error) && error.code === 'BERRY_STORE_KEY_INVALID');
          clean(`${error.message}\n${error.stack}`);
          return true;
        },
      );
    } finally {
      process.env['BERRY_STORE_KEY'] = saved;
    }
    // The CLI: stderr names the store without its password.
    const tmp = tempDir('berry-store-attack-');
    try {
      const config = writeConfig(tmp.dir, { docs: { url: 'http://127.0.0.1:1/mcp' } });
      const url = `redis://:${PASSWORD}@127.0.0.1:${await closedPort()}/0`;
      const cli = await berry(['auth', 'docs', '--logout', '--config', config, '--store', url], { cwd: tmp.dir });
      assert.notEqual(cli.code, 0, cli.stderr);
      assert.match(cli.stderr, /BERRY_STORE_UNAVAILABLE|did not answer/);
      clean(cli.stdout + cli.stderr);
    } finally {
      tmp.cleanup();
    }
  });

  it('a 100 MB catalog written by another client is refused in Redis, never sent or parsed', async () => {
    const fingerprint = 'planted';
    const name = createHash('sha256').update(`berry-mcp catalog\n${fingerprint}`).digest('hex').slice(0, 40);
    // A valid catalog: read whole, it would be believed.
    const huge = JSON.stringify({
      format: 1,
      savedAt: Date.now(),
      ttlMs: 600_000,
      tools: [{ name: 'planted', inputSchema: { type: 'object' }, description: 'x'.repeat(100 * 1024 * 1024) }],
    });
    await s.raw.set(`berry:catalog:${name}`, huge);
    const store = open();
    const t0 = Date.now();
    assert.equal(await new CatalogStore(store).load(fingerprint), undefined);
    assert.ok(Date.now() - t0 < 2_000, `took ${Date.now() - t0} ms`);
    // Nor under the observed types' name, nor as a state (a bound in the store, not after the read).
    await s.raw.rename(`berry:catalog:${name}`, `berry:catalog:${name}.observed`);
    assert.equal(await new CatalogStore(store).loadObserved(fingerprint), undefined);
    assert.equal(await store.read('catalog', `${name}.observed`, { maxBytes: 1024 }), undefined);
    await s.raw.del(`berry:catalog:${name}.observed`);
  });
});
