import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBerryError } from '../../src/common/errors.js';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { testHosts } from './helpers.js';

const CHILD = fileURLToPath(new URL('./child-call.js', import.meta.url));

describe('auth: a step-up that cannot succeed', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let fixture: OAuthFixture;
  let configPath: string;
  const hosts = testHosts();

  before(async () => {
    tmp = tempDir('berry-auth-limit-');
    // The authorization server never grants "admin": every admin_echo stays 403.
    fixture = await startOAuthFixture(['--withhold=admin']);
    configPath = writeConfig(tmp.dir, { docs: { url: fixture.url } });
  });
  afterEach(() => hosts.closeAll());
  after(async () => {
    await fixture.close();
    tmp.cleanup();
  });

  it('signs in for the wider scope once, then fails with MCP_AUTH_REQUIRED (no loop)', async () => {
    const made = hosts.open(configPath, join(tmp.dir, 'tokens-a'));
    await made.host.call({ server: 'docs', tool: 'whoami' });
    const before = await fixture.stats();
    await assert.rejects(made.host.call({ server: 'docs', tool: 'admin_echo', arguments: { text: 'x' } }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_AUTH_REQUIRED', String(error));
      return true;
    });
    const after = await fixture.stats();
    assert.equal(after.authorizations - before.authorizations, 1, 'one step-up sign-in, not a loop');
    assert.equal(made.urls.length, 2);
    // The connection still serves what the token allows.
    await made.host.call({ server: 'docs', tool: 'whoami' });
  });

  it('the process ends on its own afterwards: no listener or timer keeps it alive', async () => {
    const child = spawn(process.execPath, ['--no-node-snapshot', CHILD, configPath, join(tmp.dir, 'tokens-b'), 'admin_echo', '--interactive'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out === 'ready\n') child.stdin.write('go\n');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 0, `the child had to be killed; it printed ${out}`);
    assert.match(out, /"code":"MCP_AUTH_REQUIRED"/);
  });
});
