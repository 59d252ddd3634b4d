// A fleet on one Redis: one sign-in for every process, one refresh however many want it (the lease),
// catalogs saved by one process read by another, and an outage of Redis met with typed errors.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TokenStore } from '../../src/auth/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { createHost, type Host } from '../../src/host.js';
import { browser, startCallChild } from '../auth/helpers.js';
import { berry } from '../support/berry-cli.js';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { echoServerPath } from '../support/paths.js';
import { type RedisServer, startRedis } from '../support/redis.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { redisStore, useStoreKey } from './helpers.js';

const PROCESSES = 6;

describe('store: a fleet on one Redis', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let redis: RedisServer;
  let fixture: OAuthFixture;
  let fleetKey: ReturnType<typeof useStoreKey>;
  let configPath: string;
  /** A token dir no process may use: with a Redis store, nothing is written to files. */
  let tokenDir: string;
  let marker: string;
  let savedCacheHome: string | undefined;
  const hosts: Host[] = [];
  const open = (interactive = false): Host => {
    const host = createHost({
      cwd: tmp.dir,
      configPath,
      tokenDir,
      store: redis.url,
      savedCatalogs: true,
      warmIsolates: 0,
      ...(interactive ? { onAuthorizationUrl: browser } : {}),
    });
    hosts.push(host);
    return host;
  };
  const starts = (): number => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);

  before(async () => {
    tmp = tempDir('berry-fleet-');
    redis = await startRedis();
    fixture = await startOAuthFixture();
    fleetKey = useStoreKey();
    tokenDir = join(tmp.dir, 'tokens');
    marker = join(tmp.dir, 'starts.log');
    // Each process its own file cache: what they share can only come through Redis.
    savedCacheHome = process.env['XDG_CACHE_HOME'];
    process.env['XDG_CACHE_HOME'] = join(tmp.dir, 'cache-here');
    configPath = writeConfig(tmp.dir, {
      docs: { url: fixture.url },
      echo: { command: 'sh', args: ['-c', `echo started >> "${marker}"; exec "${process.execPath}" "${echoServerPath}"`] },
    });
    // One sign-in, for the whole fleet.
    await open(true).call({ server: 'docs', tool: 'whoami' });
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
  });
  after(async () => {
    fleetKey.restore();
    if (savedCacheHome === undefined) delete process.env['XDG_CACHE_HOME'];
    else process.env['XDG_CACHE_HOME'] = savedCacheHome;
    await fixture.close();
    await redis.stop();
    tmp.cleanup();
  });

  it(`${PROCESSES} processes meeting an expired token at once: one refresh reaches the server, all get the new token, the rotated refresh token is kept`, async () => {
    const record = (): Promise<{ refresh?: string | undefined; access?: string | undefined }> => {
      const store = redisStore(redis.url);
      return new TokenStore(store, fixture.url)
        .read()
        .then((r) => ({ refresh: r.tokens?.refresh_token, access: r.tokens?.access_token }))
        .finally(() => store.close());
    };
    const first = await record();
    assert.ok(first.refresh, 'the sign-in left a refresh token in Redis');
    const children = Array.from({ length: PROCESSES }, () => startCallChild(configPath, tokenDir, redis.url));
    await Promise.all(children.map((child) => child.ready));
    await fixture.admin('expire');
    const before = await fixture.stats();
    for (const child of children) child.go();
    const results = await Promise.all(children.map((child) => child.result));
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results),
    );
    const after = await fixture.stats();
    assert.equal(after.refreshes, before.refreshes + 1, 'exactly one refresh request reached the authorization server');
    assert.equal(after.refreshFailures, before.refreshFailures, 'no spent refresh token was sent again');
    assert.equal(after.authorizations, before.authorizations, 'nobody signed in again');
    const second = await record();
    assert.ok(second.refresh && second.refresh !== first.refresh, 'the rotated refresh token is the one kept');
    // And it works: the next expiry is refreshed with it.
    await fixture.admin('expire');
    await open().call({ server: 'docs', tool: 'whoami' });
    const last = await fixture.stats();
    assert.deepEqual([last.refreshes, last.refreshFailures], [after.refreshes + 1, after.refreshFailures]);
    assert.equal(existsSync(tokenDir), false, 'nothing was written to files');
  });

  it('a catalog saved by one process (the CLI) answers list in another without starting the server', async () => {
    const cli = await berry(['list', 'echo', '--json', '--config', configPath, '--store', redis.url], {
      cwd: tmp.dir,
      env: { XDG_CACHE_HOME: join(tmp.dir, 'cache-cli') },
    });
    assert.equal(cli.code, 0, cli.stderr);
    const started = starts();
    const listed = await open().list({ server: 'echo' });
    const server = listed.servers[0]!;
    assert.ok(server.status === 'connected' && server.cached !== undefined, JSON.stringify(server));
    assert.equal(starts(), started, 'the server was not started');
    // Catalogs go under $XDG_CACHE_HOME/berry; the CLI's compile cache (Node 22.1+) under …/berry-mcp is not one.
    assert.equal(existsSync(join(tmp.dir, 'cache-cli', 'berry')) || existsSync(join(tmp.dir, 'cache-here', 'berry')), false, 'no catalog file was written');
  });

  it('result types learned in one process are read in another', async () => {
    const first = open();
    await first.call({ server: 'echo', tool: 'echo_all', arguments: { text: 'shape' } });
    // Closing writes what it learned (observed types are flushed on close).
    await first.close();
    const described = await open().describe({ server: 'echo', tool: 'echo_all' });
    assert.match(String((described as { returns?: string }).returns), /echoed/, JSON.stringify(described));
    assert.equal(existsSync(join(tmp.dir, 'cache-here')), false, 'they were not written to files');
  });

  it('Redis stopped: what needs it fails BERRY_STORE_UNAVAILABLE within 5 s, a stdio call keeps working; restarted: back within 10 s, no token lost', async () => {
    const host = open();
    await host.call({ server: 'echo', tool: 'echo_all', arguments: { text: 'warm' } });
    const signedIn = (await fixture.stats()).authorizations;
    await redis.stop({ keepData: true });
    try {
      const t0 = Date.now();
      // A new host: its connection must read the sign-in record.
      await assert.rejects(open().call({ server: 'docs', tool: 'whoami' }), (error: unknown) => {
        assert.ok(isBerryError(error) && error.code === 'BERRY_STORE_UNAVAILABLE', String(error));
        return true;
      });
      assert.ok(Date.now() - t0 < 5_000, `failed after ${Date.now() - t0} ms`);
      const echoed = await host.call({ server: 'echo', tool: 'echo_all', arguments: { text: 'still here' } });
      assert.equal(echoed.isError, undefined);
    } finally {
      await redis.restart();
    }
    const t1 = Date.now();
    for (;;) {
      try {
        await host.call({ server: 'docs', tool: 'whoami' });
        break;
      } catch (error) {
        if (Date.now() - t1 > 10_000) throw error;
        await sleep(200);
      }
    }
    assert.ok(Date.now() - t1 < 10_000);
    assert.equal((await fixture.stats()).authorizations, signedIn, 'no sign-in was needed: no token was lost');
  });
});
