import assert from 'node:assert/strict';
import { chownSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMcpHost, type McpHost } from '../../src/bindings/index.js';
import { SshMachine } from '../../src/remote/machine/index.js';
import { filesystemPath } from '../support/paths.js';
import { processTable } from '../ssh/proc.js';
import { REMOTE_ENV, SshdUnavailableError, sshMachineOptions, startSshd, type Sshd } from '../ssh/sshd.js';
import { CONFINED_ID, hasBwrap, pidsWithMarker, rejectsWith, spy, spyEntry, withTestBinds } from './helpers.js';
import { waitFor } from '../support/wait.js';

describe('sandbox over SSH: bwrap spawned on the remote machine, binds resolved there', function () {
  this.timeout(60_000);
  let sshd: Sshd;
  let project: string;
  let owner: { uid: number; gid: number };
  let configs = 0;
  const hosts: McpHost[] = [];
  const machines: SshMachine[] = [];
  const homesDir = (): string => join(sshd.homeDir, '.config/berry/mcp-homes');

  const writeRemote = (path: string, content: string): void => {
    writeFileSync(path, content);
    chownSync(path, owner.uid, owner.gid);
  };
  const hostFor = (servers: Record<string, unknown>): McpHost => {
    const name = `config-${++configs}.json`;
    writeRemote(join(project, name), JSON.stringify({ mcpServers: servers }));
    const machine = new SshMachine(sshMachineOptions(sshd));
    machines.push(machine);
    const host = createMcpHost({ machine, cwd: project, configPath: name });
    hosts.push(host);
    return host;
  };

  before(async function () {
    if (!hasBwrap()) {
      if (process.env.CI === 'true') throw new Error('bubblewrap (bwrap) is missing: apt-get install -y bubblewrap');
      this.skip();
    }
    try {
      sshd = await startSshd();
    } catch (error) {
      if (error instanceof SshdUnavailableError && process.env.CI !== 'true') this.skip();
      throw error;
    }
    const home = statSync(sshd.homeDir);
    owner = { uid: home.uid, gid: home.gid };
    project = join(sshd.dir, 'project');
    mkdirSync(project);
    chownSync(project, owner.uid, owner.gid);
    writeRemote(join(project, 'readme.txt'), 'hello from the remote workspace\n');
    // Only in the remote user's home: "~/" in a bind must resolve there.
    mkdirSync(join(sshd.homeDir, 'sandbox-data'), { recursive: true });
    chownSync(join(sshd.homeDir, 'sandbox-data'), owner.uid, owner.gid);
    writeRemote(join(sshd.homeDir, 'sandbox-data', 'file.txt'), 'remote data\n');
    writeRemote(join(sshd.homeDir, 'secret-marker'), 'the real remote home\n');
  });

  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
    await Promise.all(machines.splice(0).map((machine) => machine.close()));
  });

  after(async () => {
    if (!sshd) return;
    rmSync(homesDir(), { recursive: true, force: true });
    rmSync(join(sshd.homeDir, 'sandbox-data'), { recursive: true, force: true });
    rmSync(join(sshd.homeDir, 'secret-marker'), { force: true });
    await sshd.stop();
  });

  it('the reference filesystem server confined "ro" on the remote: reads work, writes fail', async () => {
    const host = hostFor({ fs: { command: process.execPath, args: [filesystemPath, '/workspace'], sandbox: withTestBinds({ mode: 'on' }) } });
    const read = await host.call({ server: 'fs', tool: 'read_text_file', arguments: { path: '/workspace/readme.txt' } });
    assert.match(JSON.stringify(read.content), /hello from the remote workspace/);
    const write = await host.call({ server: 'fs', tool: 'write_file', arguments: { path: '/workspace/new.txt', content: 'x' } });
    assert.equal(write.isError, true, JSON.stringify(write));
  });

  it('the spy sees only its env, envPass from the REMOTE environment, a private remote home and ~/ binds resolved remotely', async () => {
    const host = hostFor({
      spy: spyEntry(
        { mode: 'on', envPass: [REMOTE_ENV.name], roBinds: ['~/sandbox-data:/data'] },
        { env: { ENTRY_VAR: 'entry-value', SANDBOX_TOKEN: 'sandbox-secret-1f0c' } },
      ),
    });
    const env = await spy<Record<string, string>>(host, 'spy', 'env');
    // The confined environment travels on stdin too: no command line on the machine shows it.
    assert.deepEqual(
      processTable()
        .filter((row) => row.rawCmdline.includes('sandbox-secret-1f0c'))
        .map((row) => row.cmdline),
      [],
    );
    const allowed = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'PWD', REMOTE_ENV.name, 'ENTRY_VAR', 'SANDBOX_TOKEN'];
    assert.deepEqual(
      Object.keys(env).filter((name) => !allowed.includes(name)),
      [],
      JSON.stringify(env),
    );
    assert.deepEqual([env[REMOTE_ENV.name], env.ENTRY_VAR, env.HOME], [REMOTE_ENV.value, 'entry-value', sshd.homeDir]);
    assert.deepEqual(await spy(host, 'spy', 'read', { path: join(sshd.homeDir, 'secret-marker') }), { error: 'ENOENT' });
    assert.deepEqual(await spy(host, 'spy', 'read', { path: '/data/file.txt' }), { text: 'remote data\n' });
    // An unprivileged login: uid 65534 inside a user namespace, the login's uid on the remote host.
    const who = await spy<{ pid: number; uid: number; cwd: string }>(host, 'spy', 'whoami');
    assert.deepEqual([who.uid, who.cwd], [CONFINED_ID, '/workspace']);
    assert.ok(who.pid < 10, `pid ${who.pid} is not from a fresh PID namespace`);
    assert.deepEqual(await spy(host, 'spy', 'write', { path: join(sshd.homeDir, 'token'), text: 'kept' }), { ok: true });
    const token = statSync(join(homesDir(), 'spy', 'token'));
    assert.equal(token.isFile(), true, 'the private home lives on the remote machine');
    assert.equal(token.uid, owner.uid);
  });

  it('a link one confined server swapped into its rw bind is refused at the next start of another (remote walk, remote pins)', async () => {
    const rw = join(sshd.homeDir, 'sandbox-rw');
    const secret = join(sshd.homeDir, 'sandbox-secret');
    for (const dir of [rw, join(rw, 'tools'), secret]) {
      mkdirSync(dir, { recursive: true });
      chownSync(dir, owner.uid, owner.gid);
    }
    writeRemote(join(rw, 'tools', 'tool.txt'), 'a tool\n');
    writeRemote(join(secret, 'marker'), 'remote secret\n');
    const servers = {
      writer: spyEntry({ mode: 'on', rwBinds: ['~/sandbox-rw:/rw'] }),
      reader: spyEntry({ mode: 'on', roBinds: ['~/sandbox-rw/tools:/tools'] }),
    };
    const first = hostFor(servers);
    // The reader's bind lies in the writer's rw mount: it is pinned (an fd opened by the remote shell).
    assert.deepEqual(await spy(first, 'reader', 'read', { path: '/tools/tool.txt' }), { text: 'a tool\n' });
    assert.ok(
      processTable().some((row) => / --ro-bind-fd \d \/tools /.test(` ${row.cmdline} `)),
      'the reader was not mounted from a pinned descriptor',
    );
    assert.deepEqual(await spy(first, 'writer', 'swap', { path: '/rw/tools', target: secret }), { ok: true });
    await first.close();
    const error = await rejectsWith(hostFor(servers).call({ server: 'reader', tool: 'read', arguments: { path: '/tools/marker' } }), 'MCP_SANDBOX_UNAVAILABLE');
    assert.equal((error as unknown as { reason: string }).reason, 'bind-symlink', error.message);
    assert.ok(error.message.includes(`${sshd.username}@`), error.message);
    rmSync(rw, { recursive: true, force: true });
    rmSync(secret, { recursive: true, force: true });
  });

  it('network: false cannot reach the remote loopback HTTP server that answers it otherwise; no signal reaches a remote sibling', async () => {
    const url = `http://127.0.0.1:${sshd.remoteHttp.httpPort}/`;
    const host = hostFor({ plain: spyEntry(undefined), none: spyEntry({ mode: 'on', network: false }) });
    const plain = await spy<{ status?: number }>(host, 'plain', 'fetch', { url });
    assert.equal(typeof plain.status, 'number', JSON.stringify(plain));
    const none = await spy<{ status?: number; error?: string }>(host, 'none', 'fetch', { url });
    assert.equal(none.status, undefined, JSON.stringify(none));
    const sibling = Number((await sshd.exec('nohup sleep 60 >/dev/null 2>&1 & echo $!')).trim());
    try {
      assert.deepEqual(await spy(host, 'plain', 'kill', { pid: sibling }), { ok: true });
      assert.deepEqual(await spy(host, 'none', 'kill', { pid: sibling }), { error: 'ESRCH' });
    } finally {
      process.kill(sibling, 'SIGKILL');
    }
  });

  it('a confined grandchild that left the process group dies on close', async () => {
    const marker = `berry-grandchild-${process.pid}-ssh`;
    const host = hostFor({ spy: spyEntry({ mode: 'on' }) });
    await spy(host, 'spy', 'grandchild', { marker });
    await waitFor(() => pidsWithMarker(marker).length === 1, 5000, 'the grandchild');
    await host.close();
    await waitFor(() => pidsWithMarker(marker).length === 0, 5000, 'the grandchild to die');
  });

  it('fails closed on the remote: bwrap not on its PATH, a bind path missing there, a namespace its kernel refuses', async () => {
    // The remote user's first bwrap on this PATH runs the real one where user namespaces are
    // forbidden (as in a container that disallows them): the kernel refuses it (ENOSPC).
    const refusing = join(sshd.dir, 'refusing-bin');
    mkdirSync(refusing, { recursive: true, mode: 0o755 });
    writeFileSync(join(refusing, 'bwrap'), '#!/bin/sh\nexec /usr/bin/bwrap --unshare-user --disable-userns --dev-bind / / -- /usr/bin/bwrap "$@"\n', {
      mode: 0o755,
    });
    const host = hostFor({
      nobwrap: spyEntry({ mode: 'on' }, { env: { PATH: '/nonexistent-bin' } }),
      nobind: spyEntry({ mode: 'on', roBinds: ['~/no-such-dir'] }),
      refused: spyEntry({ mode: 'on' }, { env: { PATH: `${refusing}:/usr/bin:/bin` } }),
    });
    const missing = await rejectsWith(host.call({ server: 'nobwrap', tool: 'whoami', arguments: {} }), 'MCP_SANDBOX_UNAVAILABLE');
    assert.match(missing.message, /bwrap-missing/);
    assert.ok(missing.message.includes(`${sshd.username}@`), missing.message);
    const bind = await rejectsWith(host.call({ server: 'nobind', tool: 'whoami', arguments: {} }), 'MCP_SANDBOX_UNAVAILABLE');
    assert.match(bind.message, /bind-missing/);
    assert.ok(bind.message.includes(join(sshd.homeDir, 'no-such-dir')), bind.message);
    const refused = await rejectsWith(host.call({ server: 'refused', tool: 'whoami', arguments: {} }), 'MCP_SANDBOX_UNAVAILABLE');
    assert.match(refused.message, /namespace-refused/);
  });
});
