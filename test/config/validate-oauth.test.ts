import assert from 'node:assert/strict';
import { createRedactor } from '../../src/config/index.js';
import { createTempTree, type TempTree } from './temp-machine.js';
import { errorOf, httpOf, loadWith } from './load-helpers.js';

const URL = 'https://mcp.example.com/mcp';

describe('config/validate-oauth', () => {
  let tree: TempTree;
  before(async () => {
    tree = await createTempTree();
  });
  after(async () => {
    await tree.remove();
  });

  it('resolves a full oauth block with ${VAR} secrets, redacts them, and fingerprints the block', async () => {
    const oauth = {
      clientId: 'berry-client',
      clientSecret: '${CLIENT_SECRET}',
      scopes: ['read', 'write'],
      grant: 'client_credentials',
      redirectPort: 8765,
    };
    const loaded = await loadWith(tree, { mcpServers: { h: { url: URL, oauth }, plain: { url: URL } } }, { CLIENT_SECRET: 's3cret-value' });
    const h = httpOf(loaded, 'h');
    assert.deepEqual({ ...h.oauth, scopes: [...(h.oauth?.scopes ?? [])] }, { ...oauth, clientSecret: 's3cret-value' });
    const redacted = createRedactor(h.secrets)('got s3cret-value here');
    assert.ok(redacted.startsWith('got ') && !redacted.includes('s3cret'), redacted);
    assert.equal(httpOf(loaded, 'plain').oauth, undefined);
    assert.notEqual(h.fingerprint, httpOf(loaded, 'plain').fingerprint, 'the oauth block is part of the fingerprint');

    const changed = await loadWith(tree, { mcpServers: { h: { url: URL, oauth: { ...oauth, scopes: ['read'] } } } }, { CLIENT_SECRET: 's3cret-value' });
    assert.notEqual(httpOf(changed, 'h').fingerprint, h.fingerprint);
  });

  it('redacts a private key and its lines', async () => {
    const key =
      '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\nAbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij\n-----END PRIVATE KEY-----\n';
    const loaded = await loadWith(
      tree,
      { mcpServers: { h: { url: URL, oauth: { clientId: 'c', privateKey: '${KEY}', signingAlgorithm: 'ES256' } } } },
      { KEY: key },
    );
    const redact = createRedactor(httpOf(loaded, 'h').secrets);
    assert.ok(!redact('line: MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg').includes('MIGHAgEAMBMG'));
  });

  it('rejects unknown keys, wrong types and contradictions with MCP_CONFIG_INVALID', async () => {
    const cases: [unknown, RegExp][] = [
      [{ clientID: 'x' }, /oauth\.clientID is not a known key\. Allowed keys: clientId, /],
      [{ clientId: 3 }, /oauth\.clientId must be a non-empty string, got number/],
      [{ scopes: 'read' }, /oauth\.scopes must be an array of scope names, got string/],
      [{ scopes: ['a b'] }, /oauth\.scopes\[0\] must be a scope name/],
      [{ grant: 'password' }, /oauth\.grant must be "authorization_code" or "client_credentials", got "password"/],
      [{ redirectPort: 70000 }, /oauth\.redirectPort must be a port number from 1 to 65535, got 70000/],
      [{ redirectPort: '8080' }, /redirectPort must be a port number from 1 to 65535, got string/],
      [{ clientId: 'c', signingAlgorithm: 'HS256', privateKey: 'k' }, /signingAlgorithm must be one of RS256/],
      [{ clientSecret: 's' }, /oauth\.clientId is required with "clientSecret"/],
      [{ clientId: 'c', grant: 'client_credentials' }, /oauth\.grant is "client_credentials", which needs "clientId" and "clientSecret"/],
      [{ clientId: 'c', privateKey: 'k', privateKeyFile: '/k.pem' }, /privateKeyFile cannot be used together with "privateKey"/],
      [{ clientId: 'c', clientSecret: 's', privateKey: 'k' }, /clientSecret cannot be used together with a private key/],
      [{ clientMetadataUrl: 'http://example.com/client.json' }, /clientMetadataUrl must be an https:\/\/ URL with a path/],
      ['yes', /oauth must be an object/],
      [{ clientId: 'c', privateKeyFile: 'keys/k.pem' }, /privateKeyFile must be an absolute path or start with ~\//],
    ];
    for (const [oauth, pattern] of cases) {
      const loaded = await loadWith(tree, { mcpServers: { h: { url: URL, oauth } } });
      const error = errorOf(loaded, 'h');
      assert.equal(error.code, 'MCP_CONFIG_INVALID', JSON.stringify(oauth));
      assert.match(error.message, pattern);
    }
  });

  it('refuses oauth on a stdio entry and beside a static Authorization header', async () => {
    const stdio = errorOf(await loadWith(tree, { mcpServers: { s: { command: 'x', oauth: {} } } }), 's');
    assert.match(stdio.message, /oauth applies only to HTTP servers/);
    const both = errorOf(await loadWith(tree, { mcpServers: { h: { url: URL, headers: { authorization: 'Bearer x' }, oauth: {} } } }), 'h');
    assert.match(both.message, /"Authorization" header and the entry has "oauth"/);
  });

  it('names a missing variable in the oauth block without showing other values', async () => {
    const error = errorOf(await loadWith(tree, { mcpServers: { h: { url: URL, oauth: { clientId: 'c', clientSecret: '${NOPE}' } } } }), 'h');
    assert.equal(error.code, 'MCP_ENV_MISSING');
    assert.match(error.message, /NOPE/);
  });
});
