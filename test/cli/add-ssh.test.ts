import assert from 'node:assert/strict';
import { chmodSync, chownSync, copyFileSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { berry } from '../support/berry-cli.js';
import { faultServerPath } from '../support/paths.js';
import type { CliResult } from '../support/processes.js';
import { REMOTE_ENV, SERVER_EVERYTHING, SshdUnavailableError, startSshd, type Sshd } from '../ssh/sshd.js';

const q = JSON.stringify;

describe("berry-mcp add, remove and check --ssh: the remote machine's file, checked there", function () {
  this.timeout(90_000);
  let sshd: Sshd;
  let project: string;
  let home: string;
  let owner: { uid: number; gid: number };
  let target: string[];

  before(async function () {
    try {
      sshd = await startSshd();
    } catch (error) {
      if (error instanceof SshdUnavailableError && process.env['CI'] !== 'true') {
        console.warn(`    (skipping the add --ssh suite: ${error.message})`);
        this.skip();
      }
      throw error;
    }
    const { uid, gid } = statSync(sshd.homeDir);
    owner = { uid, gid };
    project = join(sshd.dir, 'add-project');
    mkdirSync(project, { recursive: true });
    chownSync(project, uid, gid);
    // The CLI reads ~/.ssh/known_hosts: a HOME of its own holds the harness's file.
    home = join(sshd.dir, 'add-home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    copyFileSync(sshd.knownHostsFile, join(home, '.ssh', 'known_hosts'));
    target = ['--ssh', `${sshd.username}@${sshd.host}:${sshd.port}`, '--identity', sshd.identityFile];
  });
  after(async () => {
    await sshd?.stop();
  });

  const cli = (args: string[]): Promise<CliResult> => berry([...target, ...args], { cwd: project, env: { HOME: home, SSH_AUTH_SOCK: '' } });
  const config = (): string => join(project, 'mcp.json');
  const text = (): string => readFileSync(config(), 'utf8');

  it('add checks the server on the remote machine (its environment), then writes the remote file; remove and check work there too', async () => {
    const before = '{\n  "mcpServers": {\n    "off": { "command": "x", "enabled": false }\n  }\n}\n';
    writeFileSync(config(), before);
    chownSync(config(), owner.uid, owner.gid);

    // ${BERRY_REMOTE_ONLY} is set only on the remote machine: a check run here would fail MCP_ENV_MISSING.
    const added = await cli(['add', 'fault', '--config', config(), '--env', `R=\${${REMOTE_ENV.name}}`, '--', 'node', faultServerPath]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /^Added "fault" \(stdio\) to .*: connected, \d+ tools\.\n$/);
    const withFault = `{\n  "mcpServers": {\n    "off": { "command": "x", "enabled": false },\n    "fault": { "command": "node", "args": [${q(faultServerPath)}], "env": { "R": "\${${REMOTE_ENV.name}}" } }\n  }\n}\n`;
    assert.equal(text(), withFault);
    assert.equal(statSync(config()).uid, owner.uid, 'written by the remote user');
    assert.deepEqual(readdirSync(project), ['mcp.json'], 'no temp file left on the remote machine');

    const failed = await cli(['add', 'bad', '--config', config(), '--', 'berry-no-such-command-xyz']);
    assert.equal(failed.code, 2);
    assert.match(failed.stderr, /^bad  error  MCP_CONNECT_FAILED\n/);
    assert.equal(text(), withFault, 'nothing written');

    const unchecked = await cli(['add', 'ev', '--no-check', '--config', config(), '--', 'node', SERVER_EVERYTHING]);
    assert.equal(unchecked.code, 0, unchecked.stderr);

    const checked = await cli(['check', '--json', '--config', config()]);
    assert.equal(checked.code, 0, checked.stderr);
    const statuses = (JSON.parse(checked.stdout) as { servers: { name: string; status: string }[] }).servers.map((s) => [s.name, s.status]);
    assert.deepEqual(statuses, [
      ['off', 'disabled'],
      ['fault', 'connected'],
      ['ev', 'connected'],
    ]);

    const removed = await cli(['remove', 'ev', '--config', config()]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(text(), withFault);
    const removedAgain = await cli(['remove', 'fault', '--config', config()]);
    assert.equal(removedAgain.code, 0, removedAgain.stderr);
    assert.equal(text(), before);

    const broken = await cli(['add', 'broken', '--no-check', '--config', config(), '--', 'berry-no-such-command-xyz']);
    assert.equal(broken.code, 0, broken.stderr);
    const failing = await cli(['check', '--config', config()]);
    assert.equal(failing.code, 2);
    assert.match(failing.stdout, /^broken  error  MCP_CONNECT_FAILED$/m);
  });

  it("a symlinked remote mcp.json is edited where the link leads (SFTP), keeping the link and the file's mode", async () => {
    const shared = join(sshd.dir, 'add-shared');
    mkdirSync(shared, { recursive: true });
    chownSync(shared, owner.uid, owner.gid);
    const real = join(shared, 'real.json');
    writeFileSync(real, '{"mcpServers": {}}\n');
    chownSync(real, owner.uid, owner.gid);
    chmodSync(real, 0o640);
    const link = join(project, 'linked.json');
    symlinkSync('../add-shared/real.json', link);
    lchownSync(link, owner.uid, owner.gid);
    const added = await cli(['add', 'fault', '--no-check', '--config', link, '--', 'node', faultServerPath]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /\(a symlink: written to .*add-shared\/real\.json\)/);
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
    assert.match(readFileSync(real, 'utf8'), /"fault": \{/);
    assert.equal(statSync(real).mode & 0o777, 0o640);
    assert.equal(statSync(real).uid, owner.uid);
    assert.deepEqual(readdirSync(shared), ['real.json'], 'no temp file left');
    const removed = await cli(['remove', 'fault', '--config', link]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(real, 'utf8'), '{"mcpServers": {}}\n');
  });

  it('a relative --cwd for the entry is refused over SSH: it must name a place on the remote machine', async () => {
    const result = await cli(['add', 'x', '--no-check', '--cwd', 'sub', '--config', config(), '--', 'node']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--cwd must be an absolute path \(or start with ~\/\) on the remote machine/);
  });
});
