import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { firstText, startCallChild, testHosts, type TestHost } from './helpers.js';

describe('auth: refresh', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let fixture: OAuthFixture;
  let configPath: string;
  let tokenDir: string;
  const hosts = testHosts();
  const open = (interactive = true): TestHost => hosts.open(configPath, tokenDir, interactive);

  before(async () => {
    tmp = tempDir('berry-auth-refresh-');
    fixture = await startOAuthFixture(['--token-ttl=3']);
    tokenDir = join(tmp.dir, 'tokens');
    configPath = writeConfig(tmp.dir, { docs: { url: fixture.url } });
    const { host } = open();
    await host.call({ server: 'docs', tool: 'whoami' });
  });
  afterEach(() => hosts.closeAll());
  after(async () => {
    await fixture.close();
    tmp.cleanup();
  });

  it('refreshes before the token expires, without a 401 round trip or a sign-in', async () => {
    const { host, urls } = open();
    await host.call({ server: 'docs', tool: 'whoami' });
    const before = await fixture.stats();
    // Past half the 3 s lifetime the token counts as expiring.
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const result = await host.call({ server: 'docs', tool: 'whoami' });
    assert.match(firstText(result), /read/);
    const after = await fixture.stats();
    assert.equal(after.refreshes, before.refreshes + 1);
    assert.equal(after.unauthorized, before.unauthorized, 'the refresh came before the request, not after a 401');
    assert.equal(urls.length, 0);
  });

  it('two processes meeting a rejected token at once spend the refresh token once', async () => {
    // Fresh tokens in the store, then both children connect with them.
    const { host } = open();
    await host.call({ server: 'docs', tool: 'whoami' });
    const a = startCallChild(configPath, tokenDir);
    const b = startCallChild(configPath, tokenDir);
    await Promise.all([a.ready, b.ready]);
    await fixture.admin('expire');
    const before = await fixture.stats();
    a.go();
    b.go();
    const [ra, rb] = await Promise.all([a.result, b.result]);
    assert.ok(ra.ok && rb.ok, JSON.stringify([ra, rb]));
    const after = await fixture.stats();
    assert.equal(after.refreshes, before.refreshes + 1, 'exactly one refresh request reached the server');
    assert.equal(after.refreshFailures, before.refreshFailures);
    assert.equal(after.authorizations, before.authorizations);
  });
});
