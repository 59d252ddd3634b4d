import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { run, serveStdio, texts } from '../support/berry-serve.js';
import { faultServerPath, PROJECT_ROOT } from '../support/paths.js';
import { processAlive } from '../support/processes.js';
import { waitFor } from '../support/wait.js';
import { REMOTE_ENV, remoteProject, startSshdOrSkip, type Sshd } from '../ssh/sshd.js';

describe('berry-mcp serve --ssh: scripts here, servers on the remote machine', function () {
  this.timeout(60_000);
  let sshd: Sshd;
  let project: string;
  let home: string;

  before(async function () {
    sshd = await startSshdOrSkip(this, 'the serve --ssh suite');
    project = remoteProject(sshd, 'serve-project', { fault: { command: 'node', args: [faultServerPath] } });
    // serve reads ~/.ssh/known_hosts: a HOME of its own holds the harness's file.
    home = join(sshd.dir, 'serve-home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    copyFileSync(sshd.knownHostsFile, join(home, '.ssh', 'known_hosts'));
  });
  after(async () => {
    await sshd?.stop();
  });

  it('runs scripts whose calls reach remote servers over one warm connection, and stops them on exit', async () => {
    const serve = await serveStdio(
      ['--ssh', `${sshd.username}@${sshd.host}:${sshd.port}`, '--identity', sshd.identityFile, '--config', 'mcp.json', '--cwd', project],
      { cwd: PROJECT_ROOT, env: { HOME: home } },
    );
    let remotePid: number;
    try {
      const { tools } = await serve.client.listTools();
      assert.match(tools[0]!.description!, /\n- fault \(\d+\): /);
      const script = `const r = await tools.mcp_call({ server: 'fault', tool: 'whoami', arguments: { names: ['${REMOTE_ENV.name}'] } });
        return r.structuredContent;`;
      const first = await run(serve.client, script);
      assert.equal(first.isError, undefined, texts(first).join('\n'));
      const me = first.structuredContent?.['result'] as { pid: number; cwd: string; env: Record<string, string | null> };
      assert.equal(me.cwd, project);
      assert.equal(me.env[REMOTE_ENV.name], REMOTE_ENV.value);
      const second = await run(serve.client, script);
      remotePid = (second.structuredContent?.['result'] as { pid: number }).pid;
      assert.equal(remotePid, me.pid, 'the second run reused the warm connection');
    } finally {
      await serve.close();
    }
    await waitFor(() => !processAlive(remotePid), 10_000, 'the remote server to stop');
  });

  // A remote server gets the remote login environment and its entry's env: nothing local.
  it("passes neither the serve token nor a local variable to a remote server's environment", async () => {
    const local = { BERRY_SERVE_TOKEN: 'serve-token-never-remote', BERRY_TEST_LOCAL_ONLY: 'local-only' };
    const serve = await serveStdio(
      ['--ssh', `${sshd.username}@${sshd.host}:${sshd.port}`, '--identity', sshd.identityFile, '--config', 'mcp.json', '--cwd', project],
      { cwd: PROJECT_ROOT, env: { HOME: home, ...local } },
    );
    try {
      const names = JSON.stringify([...Object.keys(local), REMOTE_ENV.name]);
      const result = await run(
        serve.client,
        `return (await tools.mcp_call({ server: 'fault', tool: 'whoami', arguments: { names: ${names} } })).structuredContent.env;`,
      );
      assert.equal(result.isError, undefined, texts(result).join('\n'));
      assert.deepEqual(result.structuredContent?.['result'], { BERRY_SERVE_TOKEN: null, BERRY_TEST_LOCAL_ONLY: null, [REMOTE_ENV.name]: REMOTE_ENV.value });
    } finally {
      await serve.close();
    }
  });
});
