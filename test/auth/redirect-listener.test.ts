import assert from 'node:assert/strict';
import { isBerryError } from '../../src/common/errors.js';
import { startRedirectListener, type RedirectListener } from '../../src/auth/index.js';

describe('auth/redirect-listener', () => {
  let listener: RedirectListener;
  beforeEach(async () => {
    listener = await startRedirectListener(0);
  });
  afterEach(async () => {
    await listener.close();
  });

  it('listens on 127.0.0.1 and resolves with the code of the redirect whose state matches', async () => {
    assert.match(listener.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const code = listener.waitForCode('good-state', 5000);
    const wrong = await fetch(`${listener.redirectUrl}?code=evil&state=other`);
    assert.equal(wrong.status, 400, 'a redirect with another state is refused and ignored');
    assert.match(await wrong.text(), /state mismatch/);
    const right = await fetch(`${listener.redirectUrl}?code=abc&state=good-state`);
    assert.equal(right.status, 200);
    await right.text();
    assert.equal(await code, 'abc');
  });

  it('rejects with MCP_AUTH_REQUIRED on an error redirect, and on timeout', async () => {
    const denied = listener.waitForCode('s1', 5000);
    denied.catch(() => {});
    await (await fetch(`${listener.redirectUrl}?error=access_denied&error_description=nope&state=s1`)).text();
    await assert.rejects(denied, (error: unknown) => isBerryError(error) && error.code === 'MCP_AUTH_REQUIRED' && /access_denied \(nope\)/.test(error.message));
    await assert.rejects(listener.waitForCode('s2', 50), (error: unknown) => isBerryError(error) && /No sign-in redirect arrived/.test(error.message));
  });

  it('fails with EADDRINUSE when the wanted port is taken', async () => {
    await assert.rejects(startRedirectListener(listener.port), (error: NodeJS.ErrnoException) => error.code === 'EADDRINUSE');
  });
});
