import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isBerryError } from '../../src/common/errors.js';
import { createHost, type Host } from '../../src/host.js';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { browser } from './helpers.js';

describe('auth: the onAuthorizationUrl callback', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let fixture: OAuthFixture;
  let denying: OAuthFixture;
  let refusing: OAuthFixture;
  let configPath: string;
  const hosts: Host[] = [];
  const open = (name: string, onAuthorizationUrl: (url: string) => unknown, signInTimeoutMs?: number): Host => {
    const host = createHost({
      configPath,
      tokenDir: join(tmp.dir, name),
      onAuthorizationUrl: onAuthorizationUrl as (url: string) => Promise<void>,
      ...(signInTimeoutMs === undefined ? {} : { signInTimeoutMs }),
    });
    hosts.push(host);
    return host;
  };

  before(async () => {
    tmp = tempDir('berry-auth-callback-');
    [fixture, denying, refusing] = await Promise.all([startOAuthFixture(), startOAuthFixture(['--deny']), startOAuthFixture(['--reject-tokens'])]);
    configPath = writeConfig(tmp.dir, {
      docs: { url: fixture.url },
      denied: { url: denying.url },
      refusing: { url: refusing.url },
      static: { url: fixture.url, headers: { Authorization: 'Bearer own-token' } },
    });
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });
  after(async () => {
    await Promise.all([fixture.close(), denying.close(), refusing.close()]);
    tmp.cleanup();
  });

  it('berry-mcp waits for the redirect, not for the callback: one that never settles works', async () => {
    const host = open('never', (url) => {
      void browser(url);
      return new Promise(() => {});
    });
    const result = await host.call({ server: 'docs', tool: 'whoami' });
    assert.match(JSON.stringify(result), /read/);
  });

  it('a callback that rejects after starting the browser still signs in', async () => {
    const host = open('rejects', async (url) => {
      void browser(url);
      throw new Error('could not open a browser window');
    });
    await host.call({ server: 'docs', tool: 'whoami' });
  });

  it('no redirect within signInTimeoutMs is MCP_AUTH_REQUIRED saying so', async () => {
    const host = open('ignored', () => undefined, 300);
    const started = Date.now();
    await assert.rejects(host.call({ server: 'docs', tool: 'whoami' }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_AUTH_REQUIRED', String(error));
      assert.match(error.message, /No sign-in redirect arrived within/);
      return true;
    });
    assert.ok(Date.now() - started < 10_000);
  });

  it('closing the host ends a sign-in in progress at once and frees its port', async () => {
    let seen: (url: string) => void = () => {};
    const shown = new Promise<string>((resolve) => (seen = resolve));
    const host = open('closed', (url) => seen(url));
    const call = host.call({ server: 'docs', tool: 'whoami' }).then(
      () => assert.fail('the call should not succeed'),
      (error: unknown) => error,
    );
    const url = await shown;
    const started = Date.now();
    await host.close();
    const error = await call;
    // A caller still waiting for its connect when the host closes gets MCP_HOST_CLOSED (docs/reliability.md).
    assert.ok(isBerryError(error) && error.code === 'MCP_HOST_CLOSED', String(error));
    assert.ok(Date.now() - started < 5000);
    const callback = new URL(url).searchParams.get('redirect_uri')!;
    await assert.rejects(fetch(callback), 'the redirect listener is closed');
  });

  it('authorize() refuses an entry with its own Authorization header, and a host without the callback', async () => {
    const host = open('static', (url) => browser(url));
    await assert.rejects(
      host.authorize('static'),
      (error: unknown) => isBerryError(error) && error.code === 'MCP_INVALID_ARGUMENT' && /own "Authorization" header/.test(error.message),
    );
    const quiet = createHost({ configPath, tokenDir: join(tmp.dir, 'quiet') });
    hosts.push(quiet);
    await assert.rejects(
      quiet.authorize('docs'),
      (error: unknown) => isBerryError(error) && error.code === 'MCP_INVALID_ARGUMENT' && /onAuthorizationUrl/.test(error.message),
    );
  });

  it('a server that refuses the token it just issued gets one sign-in, not a loop', async () => {
    const urls: string[] = [];
    const host = open('refusing', (url) => {
      urls.push(url);
      return browser(url);
    });
    await assert.rejects(host.call({ server: 'refusing', tool: 'whoami' }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_AUTH_REQUIRED', String(error));
      assert.match(error.message, /refused again right after a sign-in \(the token it just issued/);
      return true;
    });
    assert.equal(urls.length, 1);
    assert.equal((await refusing.stats()).authorizations, 1);
  });

  it("a refused sign-in (access_denied) is MCP_AUTH_REQUIRED with the server's reason", async () => {
    const host = open('denied', (url) => browser(url));
    await assert.rejects(host.call({ server: 'denied', tool: 'whoami' }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_AUTH_REQUIRED', String(error));
      assert.match(error.message, /refused the sign-in: access_denied \(the fixture denies every sign-in\)/);
      return true;
    });
  });
});
