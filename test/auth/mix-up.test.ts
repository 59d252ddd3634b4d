import assert from 'node:assert/strict';
import { isBerryError } from '../../src/common/errors.js';
import { faultSuite } from './fault-suite.js';
import { firstText } from './helpers.js';

describe('auth: OAuth mix-up defences (RFC 8414 issuer, RFC 9207 iss)', function () {
  this.timeout(60_000);
  const suite = faultSuite('berry-auth-mixup-');
  const signIn = (): Promise<unknown> => suite.hosts.open(suite.configPath, suite.freshTokenDir()).host.call({ server: 'docs', tool: 'whoami' });
  const fault = suite.fault;
  const mismatch =
    (pattern: RegExp) =>
    (error: unknown): true => {
      assert.ok(isBerryError(error), String(error));
      assert.equal(error.code, 'MCP_AUTH_ISSUER_MISMATCH', error.message);
      assert.match(error.message, pattern);
      return true;
    };

  it('metadata naming another issuer is refused before anything is registered', async () => {
    await fault('issuer=wrong');
    const before = await suite.fixture.stats();
    await assert.rejects(signIn(), mismatch(/other-issuer\.example.*RFC 8414/));
    const after = await suite.fixture.stats();
    assert.equal(after.registrations, before.registrations, 'no registration with a mixed-up server');
    assert.equal(after.authorizations, before.authorizations);
  });

  it('a redirect whose iss names another issuer is refused and its code never exchanged', async () => {
    await fault('iss=wrong');
    const before = await suite.fixture.stats();
    await assert.rejects(signIn(), mismatch(/"iss" "http:\/\/other-issuer\.example\/".*RFC 9207/));
    assert.equal((await suite.fixture.stats()).codeExchanges, before.codeExchanges);
  });

  it('a redirect without the iss the metadata promised is refused', async () => {
    await fault('iss=none');
    const before = await suite.fixture.stats();
    await assert.rejects(signIn(), mismatch(/no "iss" parameter/));
    assert.equal((await suite.fixture.stats()).codeExchanges, before.codeExchanges);
  });

  it('a wrong iss is refused even when the metadata does not advertise iss', async () => {
    await fault('iss=stray');
    await assert.rejects(signIn(), mismatch(/RFC 9207/));
  });

  it('the right iss, advertised, signs in', async () => {
    await fault('iss=right');
    assert.match(firstText((await signIn()) as { content?: unknown[] }), /read/);
  });

  it('a 2025-03-26 server (no protected-resource metadata) whose metadata at its origin names an issuer with a path signs in', async () => {
    await fault('prm=none&issuer=path');
    const before = await suite.fixture.stats();
    assert.match(firstText((await signIn()) as { content?: unknown[] }), /read/);
    assert.equal((await suite.fixture.stats()).registrations, before.registrations + 1);
  });

  it("that issuer is the one the redirect's iss must name (RFC 9207)", async () => {
    await fault('prm=none&issuer=path&iss=right');
    assert.match(firstText((await signIn()) as { content?: unknown[] }), /read/);
    await suite.hosts.closeAll();
    await fault('prm=none&issuer=path&iss=wrong');
    await assert.rejects(signIn(), mismatch(/"iss" "http:\/\/other-issuer\.example\/".*RFC 9207/));
  });
});
