import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isBerryError } from '../../src/common/errors.js';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { firstText, storedSecrets, testHosts, type TestHost } from './helpers.js';

describe('auth: sign-in against a real authorization server', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let fixture: OAuthFixture;
  let configPath: string;
  let tokenDir: string;
  const hosts = testHosts();
  const open = (interactive = true): TestHost => hosts.open(configPath, tokenDir, interactive);

  before(async () => {
    tmp = tempDir('berry-auth-');
    fixture = await startOAuthFixture();
    tokenDir = join(tmp.dir, 'tokens');
    configPath = writeConfig(tmp.dir, { docs: { url: fixture.url } });
  });
  afterEach(() => hosts.closeAll());
  after(async () => {
    await fixture.close();
    tmp.cleanup();
  });

  it('without onAuthorizationUrl: list says auth_required and call rejects MCP_AUTH_REQUIRED naming the command', async () => {
    const { host } = open(false);
    const list = await host.list();
    const status = list.servers[0]!;
    assert.equal(status.status, 'auth_required');
    assert.ok(status.status === 'auth_required' && /berry-mcp auth docs/.test(status.error.message), JSON.stringify(status));
    await assert.rejects(host.call({ server: 'docs', tool: 'whoami' }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_AUTH_REQUIRED', String(error));
      assert.match(error.message, /`berry-mcp auth docs`/);
      return true;
    });
    const stats = await fixture.stats();
    assert.equal(stats.registrations, 0, 'no client is registered without a way to sign in');
  });

  it('a script sees MCP_AUTH_REQUIRED with a message it can relay', async () => {
    const { host } = open(false);
    const record = await host.run('try { await tools.mcp_call({ server: "docs", tool: "whoami" }); } catch (e) { text(e.code + " " + e.message); }');
    assert.equal(record.ok, true, JSON.stringify(record));
    assert.match(JSON.stringify(record.outputs), /MCP_AUTH_REQUIRED .*berry-mcp auth docs/);
  });

  it('first sign-in: discovery, registration, PKCE with resource and scopes, then the call goes through', async () => {
    const { host, urls, logs } = open();
    const result = await host.call({ server: 'docs', tool: 'whoami' });
    const me = JSON.parse(firstText(result)) as { scopes: string[] };
    assert.deepEqual(me.scopes.sort(), ['offline_access', 'read']);
    assert.equal(urls.length, 1);
    const url = new URL(urls[0]!);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('resource'), fixture.url);
    assert.ok(url.searchParams.get('state'));
    const stats = await fixture.stats();
    assert.equal(stats.registrations, 1);
    assert.equal(stats.codeExchanges, 1);
    assert.equal(stats.lastTokenResource, fixture.url);
    assert.match(stats.lastAuthorize!.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    // Token files: 0600 in a 0700 directory, no leftovers.
    assert.equal(statSync(tokenDir).mode & 0o777, 0o700);
    const files = readdirSync(tokenDir);
    assert.equal(files.length, 1, files.join());
    assert.equal(statSync(join(tokenDir, files[0]!)).mode & 0o777, 0o600);
    for (const secret of storedSecrets(tokenDir)) {
      assert.ok(!JSON.stringify(logs).includes(secret), 'a token appeared in the logs');
      assert.ok(!JSON.stringify(urls).includes(secret));
    }
  });

  it('reuses stored tokens in a new host without signing in again', async () => {
    const before = await fixture.stats();
    const { host, urls } = open();
    await host.call({ server: 'docs', tool: 'whoami' });
    assert.equal(urls.length, 0);
    const after = await fixture.stats();
    assert.equal(after.authorizations, before.authorizations);
    assert.equal(after.registrations, before.registrations);
    // And a host without the callback works too, with the stored token.
    const quiet = open(false);
    assert.equal((await quiet.host.list()).servers[0]!.status, 'connected');
  });

  it('refreshes once when the server rejects an access token, and the call continues', async () => {
    const { host, urls } = open();
    await host.call({ server: 'docs', tool: 'whoami' });
    const before = await fixture.stats();
    await fixture.admin('expire');
    const result = await host.call({ server: 'docs', tool: 'whoami' });
    assert.ok(firstText(result).includes('read'));
    const after = await fixture.stats();
    assert.equal(after.refreshes, before.refreshes + 1);
    assert.equal(after.authorizations, before.authorizations);
    assert.equal(urls.length, 0);
  });

  it('steps up on 403 insufficient_scope: signs in again with the wider scope and retries, once', async () => {
    const { host, urls } = open();
    const result = await host.call({ server: 'docs', tool: 'admin_echo', arguments: { text: 'hi' } });
    assert.equal(firstText(result), 'hi');
    assert.equal(urls.length, 1);
    assert.deepEqual(new URL(urls[0]!).searchParams.get('scope')!.split(' ').sort(), ['admin', 'offline_access', 'read']);
    const stats = await fixture.stats();
    assert.ok(stats.forbidden >= 1);
  });

  it('a revoked refresh token leads to a new sign-in, not a loop', async () => {
    const { host, urls } = open();
    await fixture.admin('revoke');
    const before = await fixture.stats();
    await host.call({ server: 'docs', tool: 'whoami' });
    const after = await fixture.stats();
    assert.equal(after.authorizations, before.authorizations + 1);
    assert.equal(after.refreshFailures, before.refreshFailures + 1);
    assert.equal(urls.length, 1);
  });

  it('concurrent requests that meet the same sign-in share it: one URL, one authorization, all continue', async () => {
    const { host, urls } = open();
    await host.call({ server: 'docs', tool: 'whoami' });
    await fixture.admin('revoke');
    const before = await fixture.stats();
    const results = await Promise.all([1, 2, 3].map(() => host.call({ server: 'docs', tool: 'whoami' })));
    assert.equal(results.length, 3);
    const after = await fixture.stats();
    assert.equal(after.authorizations, before.authorizations + 1);
    assert.equal(after.codeExchanges, before.codeExchanges + 1);
    assert.equal(urls.length, 1);
  });

  it('reuses the registered redirect port next time, and registers again when it is taken', async () => {
    const ownDir = join(tmp.dir, 'port-reuse');
    const first = hosts.open(configPath, ownDir);
    const portOf = (url: string): number => Number(new URL(new URL(url).searchParams.get('redirect_uri')!).port);
    await first.host.authorize('docs');
    const port = portOf(first.urls[0]!);
    const registered = (await fixture.stats()).registrations;
    await first.host.authorize('docs');
    assert.equal(portOf(first.urls[1]!), port);
    assert.equal((await fixture.stats()).registrations, registered, 'the stored client is reused');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      await first.host.authorize('docs');
      assert.notEqual(portOf(first.urls[2]!), port);
      assert.equal((await fixture.stats()).registrations, registered + 1);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('a token echoed back by the server is masked in the error', async () => {
    const { host, logs } = open();
    await host.call({ server: 'docs', tool: 'whoami' });
    const secrets = storedSecrets(tokenDir);
    assert.ok(secrets.length > 0);
    await assert.rejects(host.call({ server: 'docs', tool: 'leak_token' }), (error: unknown) => {
      assert.ok(isBerryError(error), String(error));
      assert.match(error.message, /internal error for token \*\*\*/);
      for (const secret of secrets) assert.ok(!error.message.includes(secret), 'the token is in the error');
      return true;
    });
    for (const secret of secrets) assert.ok(!JSON.stringify(logs).includes(secret), 'the token is in the logs');
  });

  it('authorize() signs in explicitly and reports the scopes; logout() removes the tokens', async () => {
    const { host, urls } = open();
    const result = await host.authorize('docs');
    assert.equal(urls.length, 1);
    assert.deepEqual([...result.scopes].sort(), ['offline_access', 'read']);
    assert.ok(result.expiresAt! > Date.now());
    assert.equal(await host.logout('docs'), true);
    assert.deepEqual(
      readdirSync(tokenDir).filter((f) => f.endsWith('.json')),
      [],
    );
    const quiet = open(false);
    assert.equal((await quiet.host.list()).servers[0]!.status, 'auth_required');
  });
});
