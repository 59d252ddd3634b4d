import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalMachine } from '../../src/remote/machine/index.js';
import { recordName, TokenStore } from '../../src/auth/index.js';
import { resolveTokenDir, withFileLock } from '../../src/store/index.js';
import { tempDir } from '../support/temp-dir.js';

describe('auth/token-store and lock', () => {
  let tmp: ReturnType<typeof tempDir>;
  const machine = new LocalMachine();
  beforeEach(() => {
    tmp = tempDir('berry-store-');
  });
  afterEach(() => {
    tmp.cleanup();
  });

  it('writes 0600 files in a 0700 directory atomically, keyed by a hash of the server URL', async () => {
    const dir = join(tmp.dir, 'a', 'oauth');
    const url = 'https://mcp.example.com/mcp?key=secret-in-url';
    const store = TokenStore.inDir(machine, dir, url);
    await store.update((r) => ({ ...r, tokens: { access_token: 'at', token_type: 'bearer', obtained_at: 1 } }));
    await store.update((r) => ({ ...r, client: { client_id: 'c' } }));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const files = readdirSync(dir);
    assert.deepEqual(files.length, 1, 'no temp files are left');
    assert.ok(!files[0]!.includes('secret'), 'the URL is not in the file name');
    assert.equal(statSync(join(dir, files[0]!)).mode & 0o777, 0o600);
    const record = await store.read();
    assert.deepEqual([record.tokens?.access_token, record.client?.client_id], ['at', 'c']);
    assert.equal((await TokenStore.inDir(machine, dir, 'https://other.example.com/mcp').read()).tokens, undefined);
    assert.equal(await store.remove(), true);
    assert.equal(await store.remove(), false);
  });

  it('treats a damaged file as no record', async () => {
    const store = TokenStore.inDir(machine, tmp.dir, 'https://x.example/mcp');
    writeFileSync(join(tmp.dir, `${recordName('https://x.example/mcp')}.json`), '{not json');
    assert.deepEqual(await store.read(), { serverUrl: 'https://x.example/mcp' });
  });

  it('finds the token dir from tokenDir, then XDG_CONFIG_HOME, then the home directory', async () => {
    assert.equal(await resolveTokenDir(machine, '/given', undefined), '/given');
    const saved = process.env['XDG_CONFIG_HOME'];
    try {
      process.env['XDG_CONFIG_HOME'] = '/xdg';
      assert.equal(await resolveTokenDir(machine, undefined), '/xdg/berry/oauth');
      delete process.env['XDG_CONFIG_HOME'];
      assert.match(await resolveTokenDir(machine, undefined), /\/\.config\/berry\/oauth$/);
    } finally {
      if (saved === undefined) delete process.env['XDG_CONFIG_HOME'];
      else process.env['XDG_CONFIG_HOME'] = saved;
    }
  });

  it('the lock lets one holder in at a time and takes over a stale lock', async () => {
    const lock = join(tmp.dir, 'x.lock');
    const order: string[] = [];
    const hold = (name: string): Promise<void> =>
      withFileLock(machine, lock, async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 80));
        order.push(`${name}-`);
      });
    await Promise.all([hold('a'), hold('b')]);
    assert.ok(order.join() === 'a+,a-,b+,b-' || order.join() === 'b+,b-,a+,a-', order.join());
    assert.deepEqual(readdirSync(tmp.dir), [], 'the lock file is removed');

    writeFileSync(lock, JSON.stringify({ owner: 'dead-process', at: Date.now() - 60_000 }));
    const started = Date.now();
    assert.equal(await withFileLock(machine, lock, async () => 'in', { staleMs: 30_000 }), 'in');
    assert.ok(Date.now() - started < 2000);
  });

  it('gives up on a live lock after waitMs', async () => {
    const lock = join(tmp.dir, 'y.lock');
    writeFileSync(lock, JSON.stringify({ owner: 'other', at: Date.now() }));
    await assert.rejects(
      withFileLock(machine, lock, async () => 'never', { waitMs: 200 }),
      /held the sign-in lock/,
    );
  });
});
