import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isBerryError } from '../../src/common/errors.js';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { firstText, testHosts, type TestHost } from './helpers.js';

const SECRET = 'cc-secret-Qm93xLw0';

describe('auth: configured clients (client credentials, pre-registered)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let fixture: OAuthFixture;
  let privatePem: string;
  const hosts = testHosts();

  before(async () => {
    tmp = tempDir('berry-auth-cc-');
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    fixture = await startOAuthFixture([`--client=machine:${SECRET}`, '--jwt-client=jwt-machine'], { FIXTURE_JWT_PUBLIC_KEY: publicPem });
  });
  afterEach(() => hosts.closeAll());
  after(async () => {
    await fixture.close();
    tmp.cleanup();
  });

  function hostWith(name: string, oauth: Record<string, unknown>): TestHost {
    const dir = join(tmp.dir, name);
    const configPath = writeConfig(dir, { svc: { url: fixture.url, oauth } });
    // No onAuthorizationUrl: client credentials never need one.
    return hosts.open(configPath, join(dir, 'tokens'), false);
  }

  it('gets a token with a client secret (from ${VAR}) and never shows the secret', async () => {
    process.env['BERRY_CC_SECRET'] = SECRET;
    const { host, logs } = hostWith('secret', { clientId: 'machine', clientSecret: '${BERRY_CC_SECRET}', grant: 'client_credentials', scopes: ['read'] });
    const before = await fixture.stats();
    const result = await host.call({ server: 'svc', tool: 'whoami' });
    assert.equal(JSON.parse(firstText(result)).clientId, 'machine');
    const after = await fixture.stats();
    assert.equal(after.clientCredentials, before.clientCredentials + 1);
    assert.equal(after.authorizations, before.authorizations);
    assert.ok(!JSON.stringify(logs).includes(SECRET));
  });

  it('gets a token with a private key JWT read from privateKeyFile', async () => {
    const keyFile = join(tmp.dir, 'key.pem');
    writeFileSync(keyFile, privatePem, { mode: 0o600 });
    const { host } = hostWith('jwt', { clientId: 'jwt-machine', privateKeyFile: keyFile, signingAlgorithm: 'ES256', grant: 'client_credentials' });
    const result = await host.call({ server: 'svc', tool: 'whoami' });
    assert.equal(JSON.parse(firstText(result)).clientId, 'jwt-machine');
    assert.equal((await fixture.stats()).lastClientAuth, 'private_key_jwt');
  });

  it('authorize() needs no callback for client credentials and reports the granted scopes', async () => {
    process.env['BERRY_CC_SECRET'] = SECRET;
    const { host } = hostWith('authorize', { clientId: 'machine', clientSecret: '${BERRY_CC_SECRET}', grant: 'client_credentials', scopes: ['read'] });
    const result = await host.authorize('svc');
    assert.deepEqual(result.scopes, ['read']);
  });

  it('a pre-registered client signs in with a code on an ephemeral loopback port, without registering', async () => {
    process.env['BERRY_CC_SECRET'] = SECRET;
    const dir = join(tmp.dir, 'prereg');
    const configPath = writeConfig(dir, { svc: { url: fixture.url, oauth: { clientId: 'machine', clientSecret: '${BERRY_CC_SECRET}' } } });
    const made = hosts.open(configPath, join(dir, 'tokens'));
    const before = await fixture.stats();
    const result = await made.host.call({ server: 'svc', tool: 'whoami' });
    assert.equal(JSON.parse(firstText(result)).clientId, 'machine');
    const after = await fixture.stats();
    assert.equal(after.registrations, before.registrations);
    assert.equal(after.codeExchanges, before.codeExchanges + 1, 'the exchange repeated the redirect URI');
    assert.equal(made.urls.length, 1);
    assert.equal(new URL(made.urls[0]!).searchParams.get('client_id'), 'machine');
  });

  it('a wrong secret is MCP_AUTH_REQUIRED without the secret in the message', async () => {
    const { host } = hostWith('wrong', { clientId: 'machine', clientSecret: 'wrong-secret-value', grant: 'client_credentials' });
    await assert.rejects(host.call({ server: 'svc', tool: 'whoami' }), (error: unknown) => {
      assert.ok(isBerryError(error), String(error));
      assert.equal(error.code, 'MCP_AUTH_REQUIRED', error.message);
      assert.ok(!error.message.includes('wrong-secret-value'));
      return true;
    });
  });
});
