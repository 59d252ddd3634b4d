import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type OAuthFixture, startOAuthFixture } from '../support/fixture-servers.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { storedSecrets } from './helpers.js';

const BIN = join(PROJECT_ROOT, 'dist', 'src', 'bin.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real bin with XDG_CONFIG_HOME and XDG_CACHE_HOME in the temp dir: tokens never touch
 * the real home, and no saved catalog of an earlier run (a fixture that got the same port) is read.
 */
function cli(args: string[], xdg: string, onStderr?: (text: string, write: (line: string) => void) => void): Promise<Run> {
  const env = { ...process.env, XDG_CONFIG_HOME: xdg, XDG_CACHE_HOME: join(xdg, 'cache') };
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    onStderr?.(stderr, (line) => child.stdin.write(`${line}\n`));
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('auth: berry-mcp auth (CLI)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let fixture: OAuthFixture;
  let configPath: string;
  let xdg: string;

  before(async () => {
    tmp = tempDir('berry-auth-cli-');
    fixture = await startOAuthFixture();
    xdg = join(tmp.dir, 'xdg');
    configPath = writeConfig(tmp.dir, { docs: { url: fixture.url }, local: { command: process.execPath, args: ['-e', ''] } });
  });
  after(async () => {
    await fixture.close();
    tmp.cleanup();
  });

  it('list says auth_required and names the command', async () => {
    const run = await cli(['list', '--config', configPath], xdg);
    assert.match(run.stdout, /docs\s+auth_required\s+http/);
    assert.match(run.stdout, /berry-mcp auth docs/);
  });

  it('--no-browser prints the URL and takes the pasted redirect address from stdin', async () => {
    let pasted = false;
    const run = await cli(['auth', 'docs', '--no-browser', '--config', configPath], xdg, (text, write) => {
      const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(text)?.[1];
      if (!url || pasted || !/Paste that whole address/.test(text)) return;
      pasted = true;
      // The "browser" is elsewhere: it gets the redirect address but cannot reach our listener.
      void (async () => {
        const response = await fetch(url, { redirect: 'manual' });
        const location = response.headers.get('location')!;
        await response.body?.cancel();
        write('this is not a url');
        write(location);
      })();
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /That is not a URL/);
    assert.match(run.stdout, /Signed in to "docs"\. Scopes: read offline_access\./);
    const dir = join(xdg, 'berry', 'oauth');
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.equal(statSync(join(dir, files[0]!)).mode & 0o777, 0o600);
    for (const secret of storedSecrets(dir)) {
      assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), 'a token was printed');
    }
    const list = await cli(['list', '--config', configPath], xdg);
    assert.match(list.stdout, /docs\s+connected\s+http/);
  });

  it('--logout removes the tokens; auth of a stdio server is refused with status 2', async () => {
    const out = await cli(['auth', 'docs', '--logout', '--config', configPath], xdg);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /Signed out of "docs"/);
    assert.deepEqual(
      readdirSync(join(xdg, 'berry', 'oauth')).filter((f) => f.endsWith('.json')),
      [],
    );
    const again = await cli(['auth', 'docs', '--logout', '--config', configPath], xdg);
    assert.match(again.stdout, /No stored sign-in for "docs"/);
    const stdio = await cli(['auth', 'local', '--config', configPath], xdg);
    assert.equal(stdio.code, 2);
    assert.match(stdio.stderr, /stdio server; only HTTP servers/);
  });
});
