import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { firstText, setFault, testHosts } from './helpers.js';

describe('auth: dynamic client registration as 2026-07-28 asks (SEP-837, SEP-2352)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  // `first` is the resource's authorization server until the fault as=moved names `second`.
  let first: OAuthFixture;
  let second: OAuthFixture;
  let configPath: string;
  let dirs = 0;
  const hosts = testHosts();
  const open = (): ReturnType<typeof hosts.open> => hosts.open(configPath, join(tmp.dir, `tokens-${++dirs}`));

  before(async () => {
    tmp = tempDir('berry-auth-registration-');
    second = await startOAuthFixture();
    first = await startOAuthFixture([`--trust=${second.base}`]);
    configPath = writeConfig(tmp.dir, { docs: { url: first.url } });
  });
  afterEach(async () => {
    await hosts.closeAll();
    await setFault(first.base, '');
  });
  after(async () => {
    await first?.close();
    await second?.close();
    tmp.cleanup();
  });

  it('registers as a native application (a loopback redirect, RFC 8252) with the refresh_token grant', async () => {
    await open().host.call({ server: 'docs', tool: 'whoami' });
    const registration = (await first.stats()).lastRegistration;
    assert.ok(registration, 'a client was registered');
    assert.equal(registration['application_type'], 'native');
    assert.deepEqual(registration['grant_types'], ['authorization_code', 'refresh_token']);
    assert.match(String((registration['redirect_uris'] as string[])[0]), /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  });

  it('when the resource moves to another authorization server, signs in there with a client registered there', async () => {
    const { host, urls } = open();
    const was = JSON.parse(firstText(await host.call({ server: 'docs', tool: 'whoami' }))) as { clientId: string };
    const before = await second.stats();
    await setFault(first.base, 'as=moved');
    // The old server's token (and a refresh there) is refused now: berry-mcp asks the resource again.
    const me = JSON.parse(firstText(await host.call({ server: 'docs', tool: 'whoami' }))) as { clientId: string; scopes: string[] };
    const after = await second.stats();
    assert.equal(after.registrations, before.registrations + 1, 'registered with the new authorization server');
    // The old server's refresh worked, its token did not: the listener is up before that registration too.
    assert.match(String((after.lastRegistration?.['redirect_uris'] as string[])[0]), /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.equal(after.authorizations, before.authorizations + 1);
    assert.equal(after.codeExchanges, before.codeExchanges + 1);
    assert.equal(urls.length, 2);
    assert.ok(urls[1]!.startsWith(`${second.base}/authorize?`), urls[1]);
    assert.ok(!urls[1]!.includes(encodeURIComponent(was.clientId)), 'the old client id never goes to the new server');
    assert.notEqual(me.clientId, was.clientId);
    assert.ok(me.scopes.includes('read'));
  });
});
