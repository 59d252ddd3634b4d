import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../support/berry-serve.js';
import { modernTexts, resultOf, runModern, type RunAnswer } from '../support/berry-serve-modern.js';
import { startOAuthFixture, type OAuthFixture } from '../support/fixture-servers.js';
import { nginxInstalled } from '../support/nginx.js';
import { REDIS_SERVER, startRedis, type RedisServer } from '../support/redis.js';
import { tempDir } from '../support/temp-dir.js';
import { REPLICAS, spreadClients, startFleet, type Fleet, type FleetClient } from './fleet.js';

const STORE_KEY = Buffer.alloc(32, 7).toString('base64');
const CALL_DOCS = `return (await tools.mcp_call({ server: 'docs', tool: 'whoami', arguments: {} })).content[0].text;`;

/** `berry-mcp auth docs --no-browser` against the store: the "browser" approves and the redirect address is pasted. */
async function signIn(fleet: Fleet, redis: RedisServer, home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'auth', 'docs', '--no-browser', '--config', 'mcp.json', '--store', redis.url], {
    cwd: fleet.dir,
    env: { ...process.env, XDG_CONFIG_HOME: home, BERRY_STORE_KEY: STORE_KEY },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let pasted = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
    if (!url || pasted || !/Paste that whole address/.test(stderr)) return;
    pasted = true;
    void (async () => {
      const response = await fetch(url, { redirect: 'manual' });
      await response.body?.cancel();
      child.stdin.write(`${response.headers.get('location')}\n`);
    })();
  });
  // A sign-in that hangs must fail the test, not hold mocha open.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

const answer = (result: { structuredContent?: unknown }): RunAnswer => result.structuredContent as RunAnswer;

// Three replicas behind nginx sharing one Redis (--store, BERRY_STORE_KEY), each with a config home
// of its own: what they share comes from the store, not from files of the machine.
describe('fleet: three replicas behind nginx with one Redis store', function () {
  this.timeout(120_000);
  let redis: RedisServer;
  let homes: ReturnType<typeof tempDir>;
  let oauth: OAuthFixture;
  let fleet: Fleet;
  let clients: FleetClient[] = [];

  before(async function () {
    if ((!nginxInstalled() || !existsSync(REDIS_SERVER)) && !process.env['CI']) this.skip();
    redis = await startRedis();
    homes = tempDir('berry-fleet-homes-');
    oauth = await startOAuthFixture();
    fleet = await startFleet('berry-fleet-store-', {
      servers: { docs: { url: oauth.url } },
      args: ['--store', redis.url],
      env: (replica) => ({ XDG_CONFIG_HOME: join(homes.dir, replica), BERRY_STORE_KEY: STORE_KEY }),
    });
    clients = await spreadClients(fleet, 1);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await fleet?.close();
    await oauth?.close();
    await redis?.stop();
    homes?.cleanup();
  });

  const onAll = (code: string, options: { state?: string } = {}) =>
    Promise.all(clients.map(async (c) => ({ c, result: await runModern(c.client, code, options) })));

  it('signs in once; every replica then calls the OAuth-protected server', async () => {
    const signed = await signIn(fleet, redis, join(homes.dir, 'sign-in'));
    assert.equal(signed.code, 0, signed.stderr);
    for (const { c, result } of await onAll(CALL_DOCS)) assert.equal(answer(result).ok, true, `${c.replica}: ${modernTexts(result).join('\n')}`);
    const stats = await oauth.stats();
    assert.equal(stats.authorizations, 1);
    assert.equal(stats.codeExchanges, 1);
  });

  it('with the access token expired, runs on all three at once cause exactly one refresh, and every run succeeds', async () => {
    const before = await oauth.stats();
    await oauth.admin('expire');
    const results = await onAll(CALL_DOCS);
    for (const { c, result } of results) assert.equal(answer(result).ok, true, `${c.replica}: ${modernTexts(result).join('\n')}`);
    const after = await oauth.stats();
    assert.equal(after.refreshes - before.refreshes, 1);
    assert.equal(after.refreshFailures, before.refreshFailures);
    assert.equal(after.authorizations, before.authorizations);
  });

  it('a run state made on one replica is read on another', async () => {
    const [maker, reader] = [clients[0]!, clients[1]!];
    assert.notEqual(maker.replica, reader.replica);
    const made = answer(await runModern(maker.client, `store('counter', 41); return 'stored'`));
    assert.equal(made.ok, true, JSON.stringify(made));
    assert.ok(made.state, 'a state id');
    const read = await runModern(reader.client, `return load('counter') + 1`, { state: made.state });
    assert.equal(resultOf(read), 42, modernTexts(read).join('\n'));
  });

  it('Redis stopped: a run naming its state fails BERRY_STORE_UNAVAILABLE within 5 s, what needs no store works; started again: full service, no token lost', async () => {
    const made = answer(await runModern(clients[0]!.client, `store('kept', 'yes'); return 1`));
    await redis.stop({ keepData: true });
    try {
      const started = Date.now();
      // A run naming its state: serve cannot load it, and the run's answer says so with the code.
      for (const { c, result } of await onAll(`return load('kept')`, { state: made.state! })) {
        assert.equal(answer(result).error?.code, 'BERRY_STORE_UNAVAILABLE', `${c.replica}: ${JSON.stringify(result.structuredContent)}`);
      }
      const failedIn = Date.now() - started;
      // What needs no store keeps working: the replicas hold the sign-in they read, and a plain run.
      for (const { c, result } of await onAll(CALL_DOCS)) assert.equal(answer(result).ok, true, `${c.replica}: ${modernTexts(result).join('\n')}`);
      assert.ok(failedIn < 5_000 + 2_000, `errors after ${failedIn} ms`);
      // A run that needs no store keeps working.
      for (const { result } of await onAll(`return 1 + 1`)) assert.equal(resultOf(result), 2);
    } finally {
      await redis.restart();
    }
    const back = Date.now();
    let all = false;
    while (!all && Date.now() - back < 15_000) {
      const results = await onAll(`return load('kept')`, { state: made.state! });
      all = results.every(({ result }) => answer(result).ok === true);
      if (!all) await new Promise((r) => setTimeout(r, 250));
    }
    if (process.env['VERBOSE']) process.stdout.write(`      full service ${Date.now() - back} ms after Redis came back\n`);
    assert.ok(all, 'full service within 15 s of Redis coming back');
    for (const { c, result } of await onAll(CALL_DOCS)) assert.equal(answer(result).ok, true, `${c.replica}: ${modernTexts(result).join('\n')}`);
    const stats = await oauth.stats();
    assert.equal(stats.authorizations, 1, 'no second sign-in: the token survived');
    assert.equal(new Set(clients.map((c) => c.replica)).size, REPLICAS.length);
  });
});
