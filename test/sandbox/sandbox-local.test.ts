import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpHost, type ListResult, type McpHost } from '../../src/bindings/index.js';
import { filesystemPath, PROJECT_ROOT } from '../support/paths.js';
import { runProcess } from '../support/processes.js';
import { writeConfig } from '../support/write-config.js';
import {
  CONFINED_ID,
  giveToConfined,
  hasBwrap,
  pidsWithMarker,
  rejectsWith,
  ScratchHomeMachine,
  scratchDir,
  spy,
  spyEntry,
  startPong,
  withTestBinds,
} from './helpers.js';
import { waitFor } from '../support/wait.js';

const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');

describe('sandbox: stdio servers confined in bubblewrap on the local machine', function () {
  this.timeout(60_000);
  /** Under the checkout (a read-only system mount inside), not /tmp (hidden anyway): hiding must be our doing. */
  let root: string;
  let home: string;
  let work: string;
  let pong: Awaited<ReturnType<typeof startPong>>;
  let configs = 0;
  const hosts: McpHost[] = [];

  const hostFor = (servers: Record<string, unknown>): { host: McpHost; configPath: string } => {
    const configPath = writeConfig(join(root, `config-${++configs}`), servers);
    const host = createMcpHost({ machine: new ScratchHomeMachine(home), cwd: work, configPath });
    hosts.push(host);
    return { host, configPath };
  };

  before(async function () {
    if (!hasBwrap()) {
      if (process.env.CI === 'true') throw new Error('bubblewrap (bwrap) is missing: apt-get install -y bubblewrap');
      this.skip();
    }
    root = scratchDir('sandbox-');
    home = join(root, 'home');
    work = join(root, 'work');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_test'), 'PRIVATE-KEY-MARKER\n');
    writeFileSync(join(home, 'notes.txt'), 'the real home\n');
    mkdirSync(work);
    // The "rw" workspace must be writable by the confined uid when the tests run as root.
    giveToConfined(work);
    writeFileSync(join(work, 'readme.txt'), 'hello from the workspace\n');
    pong = await startPong();
  });

  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
  });

  after(async () => {
    await pong?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the reference filesystem server confined "ro": reads work, writes fail; "rw" writes reach the workspace', async () => {
    const fs = (workspace: string): Record<string, unknown> => ({
      command: process.execPath,
      args: [filesystemPath, '/workspace'],
      sandbox: withTestBinds({ mode: 'on', workspace }),
    });
    const { host } = hostFor({ ro: fs('ro'), rw: fs('rw') });
    const read = await host.call({ server: 'ro', tool: 'read_text_file', arguments: { path: '/workspace/readme.txt' } });
    assert.match(JSON.stringify(read.content), /hello from the workspace/);
    const write = await host.call({ server: 'ro', tool: 'write_file', arguments: { path: '/workspace/new.txt', content: 'x' } });
    assert.equal(write.isError, true, JSON.stringify(write));
    assert.match(JSON.stringify(write.content), /EROFS|read-only/i);
    assert.ok(!existsSync(join(work, 'new.txt')));
    const rw = await host.call({ server: 'rw', tool: 'write_file', arguments: { path: '/workspace/new.txt', content: 'written inside' } });
    assert.notEqual(rw.isError, true, JSON.stringify(rw));
    assert.equal(readFileSync(join(work, 'new.txt'), 'utf8'), 'written inside');
    rmSync(join(work, 'new.txt'));
  });

  it('the spy sees neither the real home, ~/.ssh, /tmp nor variables outside envPass; its private home persists', async () => {
    process.env.SPY_SECRET = 'outside-secret-value';
    process.env.SPY_PASSED = 'passed-value';
    const hostTmp = mkdtempSync(join(tmpdir(), 'berry-host-only-'));
    try {
      const { host } = hostFor({ spy: spyEntry({ mode: 'on', envPass: ['SPY_PASSED'] }, { env: { ENTRY_VAR: 'entry-value' } }) });
      const env = await spy<Record<string, string>>(host, 'spy', 'env');
      // PWD is bwrap's own (--chdir), the sandbox's working directory.
      const allowed = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'PWD', 'SPY_PASSED', 'ENTRY_VAR'];
      assert.deepEqual(
        Object.keys(env).filter((name) => !allowed.includes(name)),
        [],
        JSON.stringify(env),
      );
      assert.deepEqual([env.SPY_PASSED, env.ENTRY_VAR, env.HOME, env.TMPDIR], ['passed-value', 'entry-value', home, '/tmp']);
      assert.deepEqual(await spy(host, 'spy', 'read', { path: join(home, '.ssh', 'id_test') }), { error: 'ENOENT' });
      assert.deepEqual(await spy(host, 'spy', 'read', { path: join(home, 'notes.txt') }), { error: 'ENOENT' });
      assert.deepEqual(await spy(host, 'spy', 'list', { path: '/root' }), { error: 'ENOENT' });
      const tmp = await spy<{ names: string[] }>(host, 'spy', 'list', { path: tmpdir() });
      assert.ok(!tmp.names.some((name) => hostTmp.endsWith(name)), 'the host /tmp shows through');
      const who = await spy<{ cwd: string; home: string }>(host, 'spy', 'whoami');
      assert.equal(who.cwd, '/workspace');
      // The private home is the server's own and survives it, on the machine.
      assert.deepEqual(await spy(host, 'spy', 'write', { path: join(home, 'token'), text: 'kept' }), { ok: true });
      assert.equal(readFileSync(join(home, '.config/berry/mcp-homes/spy/token'), 'utf8'), 'kept');
      assert.ok(!existsSync(join(home, 'token')), 'the write went to the real home');
    } finally {
      delete process.env.SPY_SECRET;
      delete process.env.SPY_PASSED;
      rmSync(hostTmp, { recursive: true, force: true });
    }
  });

  it('a bind mounted deep under /tmp or a new top folder is reachable for the server (the folders above it are 0755)', async () => {
    // As root, bwrap made the folders above such a mount point 0700: uid 65534 could not pass them
    // (a checkout under /tmp, as CI's, could not even load its own fixtures).
    const data = join(root, 'deep-data');
    mkdirSync(data);
    writeFileSync(join(data, 'found.txt'), 'reached\n');
    const { host } = hostFor({ deep: spyEntry({ mode: 'on', roBinds: [`${data}:/tmp/a/b/data`, `${data}:/berry-new/c/data`] }) });
    assert.deepEqual(await spy(host, 'deep', 'read', { path: '/tmp/a/b/data/found.txt' }), { text: 'reached\n' });
    assert.deepEqual(await spy(host, 'deep', 'read', { path: '/berry-new/c/data/found.txt' }), { text: 'reached\n' });
  });

  it('workspace "none" hides the working directory, at /workspace and at its own path', async () => {
    const { host } = hostFor({ none: spyEntry({ mode: 'on', workspace: 'none' }) });
    assert.deepEqual(await spy(host, 'none', 'list', { path: '/workspace' }), { error: 'ENOENT' });
    const own = await spy<{ names?: string[] }>(host, 'none', 'list', { path: work });
    assert.ok(!(own.names ?? []).includes('readme.txt'), JSON.stringify(own));
    assert.equal((await spy<{ cwd: string }>(host, 'none', 'whoami')).cwd, home);
  });

  it('with network: false it cannot reach a loopback HTTP server that answers it otherwise', async () => {
    const { host } = hostFor({ plain: spyEntry(undefined), shared: spyEntry({ mode: 'on' }), none: spyEntry({ mode: 'on', network: false }) });
    assert.deepEqual(await spy(host, 'plain', 'fetch', { url: pong.url }), { status: 200, body: 'pong' });
    assert.deepEqual(await spy(host, 'shared', 'fetch', { url: pong.url }), { status: 200, body: 'pong' });
    const none = await spy<{ error?: string; status?: number }>(host, 'none', 'fetch', { url: pong.url });
    assert.equal(none.status, undefined, JSON.stringify(none));
    assert.ok(none.error, JSON.stringify(none));
  });

  it('it cannot signal the host process (own PID namespace); unconfined it could', async () => {
    const { host } = hostFor({ plain: spyEntry(undefined), confined: spyEntry({ mode: 'on' }) });
    assert.deepEqual(await spy(host, 'plain', 'kill', { pid: process.pid }), { ok: true });
    assert.deepEqual(await spy(host, 'confined', 'kill', { pid: process.pid }), { error: 'ESRCH' });
    const who = await spy<{ pid: number }>(host, 'confined', 'whoami');
    assert.ok(who.pid < 10, `pid ${who.pid} is not from a fresh PID namespace`);
  });

  it('grandchildren die on close, even one that left the process group (setsid); unconfined that one survives', async () => {
    const confinedMarker = `berry-grandchild-${process.pid}-confined`;
    const plainMarker = `berry-grandchild-${process.pid}-plain`;
    const { host } = hostFor({ plain: spyEntry(undefined), confined: spyEntry({ mode: 'on' }) });
    await spy(host, 'confined', 'grandchild', { marker: confinedMarker });
    await spy(host, 'plain', 'grandchild', { marker: plainMarker });
    await waitFor(() => pidsWithMarker(confinedMarker).length === 1 && pidsWithMarker(plainMarker).length === 1, 5000, 'both grandchildren');
    await host.close();
    await waitFor(() => pidsWithMarker(confinedMarker).length === 0, 5000, 'the confined grandchild to die');
    const survivors = pidsWithMarker(plainMarker);
    assert.equal(survivors.length, 1, 'the control: an unconfined setsid grandchild outlives its server');
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
  });

  it('an npx-launched server works confined (npm runs in the private home)', async () => {
    const { host } = hostFor({
      npx: { command: 'npx', args: ['--no-install', 'mcp-server-filesystem', '/workspace'], cwd: PROJECT_ROOT, sandbox: withTestBinds({ mode: 'on' }) },
    });
    const listed = await host.call({ server: 'npx', tool: 'list_allowed_directories', arguments: {} });
    assert.match(JSON.stringify(listed.content), /\/workspace/);
    assert.ok(existsSync(join(home, '.config/berry/mcp-homes/npx/.npm')), 'npm wrote its cache to the private home');
  });

  it('a changed sandbox block gets a new connection', async () => {
    const { host, configPath } = hostFor({ spy: spyEntry({ mode: 'on' }) });
    assert.deepEqual(await spy(host, 'spy', 'fetch', { url: pong.url }), { status: 200, body: 'pong' });
    writeFileSync(configPath, JSON.stringify({ mcpServers: { spy: spyEntry({ mode: 'on', network: false }) } }));
    const after = await spy<{ status?: number }>(host, 'spy', 'fetch', { url: pong.url });
    assert.equal(after.status, undefined, 'still the old connection');
  });

  describe('as root: what uid 65534 may use is checked as that uid before the start', () => {
    before(function () {
      if (process.getuid?.() !== 0) this.skip();
    });

    it('group rights count (a directory of group 65534, mode 0770, is writable for it); a workspace it cannot enter is refused', async () => {
      const shared = join(root, 'group-shared');
      mkdirSync(shared);
      chownSync(shared, 0, CONFINED_ID);
      chmodSync(shared, 0o770);
      const closed = join(root, 'closed-workspace');
      mkdirSync(closed, { mode: 0o700 });
      const { host } = hostFor({ group: spyEntry({ mode: 'on', rwBinds: [`${shared}:/shared`] }), closed: spyEntry({ mode: 'on' }, { cwd: closed }) });
      assert.deepEqual(await spy(host, 'group', 'write', { path: '/shared/by-the-server', text: 'x' }), { ok: true });
      assert.equal(statSync(join(shared, 'by-the-server')).uid, CONFINED_ID);
      const error = await rejectsWith(host.call({ server: 'closed', tool: 'whoami', arguments: {} }), 'MCP_SANDBOX_UNAVAILABLE');
      assert.equal((error as unknown as { reason: string }).reason, 'bind-permission');
      assert.ok(error.message.includes(`chmod o+x ${closed}`), error.message);
    });

    it('a private home made by root (an earlier version) is handed to uid 65534 with everything in it', async () => {
      const privateHome = join(home, '.config/berry/mcp-homes/legacy');
      mkdirSync(join(privateHome, '.npm', '_cacache'), { recursive: true, mode: 0o700 });
      writeFileSync(join(privateHome, '.npm', '_cacache', 'entry'), 'cached by root\n');
      const { host } = hostFor({ legacy: spyEntry({ mode: 'on' }) });
      assert.deepEqual(await spy(host, 'legacy', 'write', { path: join(home, '.npm', '_cacache', 'entry'), text: 'rewritten' }), { ok: true });
      for (const path of [privateHome, join(privateHome, '.npm'), join(privateHome, '.npm', '_cacache', 'entry')])
        assert.equal(statSync(path).uid, CONFINED_ID, path);
    });
  });

  describe('fails closed: a server that must be confined and cannot be is not started', () => {
    it('bubblewrap missing (not on PATH): MCP_SANDBOX_UNAVAILABLE in list and call; "auto" runs it unconfined and says so', async () => {
      const emptyBin = join(root, 'empty-bin');
      mkdirSync(emptyBin, { recursive: true });
      const env = { PATH: emptyBin };
      const { host } = hostFor({ on: spyEntry({ mode: 'on' }, { env }), auto: spyEntry({ mode: 'auto' }, { env }) });
      const listed = await host.list();
      const on = listed.servers.find((s) => s.name === 'on')!;
      assert.equal(on.status, 'error');
      assert.equal(on.status === 'error' && on.error.code, 'MCP_SANDBOX_UNAVAILABLE');
      assert.match(on.status === 'error' ? on.error.message : '', /bwrap-missing/);
      const error = await rejectsWith(host.call({ server: 'on', tool: 'whoami', arguments: {} }), 'MCP_SANDBOX_UNAVAILABLE');
      assert.equal((error as unknown as { reason: string }).reason, 'bwrap-missing');
      const auto = listed.servers.find((s) => s.name === 'auto')!;
      assert.equal(auto.status, 'connected');
      assert.match(JSON.stringify(auto.status === 'connected' ? auto.warnings : []), /not confined: .*bwrap-missing/);
      // Really unconfined: it can signal us.
      assert.deepEqual(await spy(host, 'auto', 'kill', { pid: process.pid }), { ok: true });
    });

    it('a bind path that does not exist: MCP_SANDBOX_UNAVAILABLE naming the path (also with "auto")', async () => {
      const missing = join(root, 'no-such-dir');
      const { host } = hostFor({ on: spyEntry({ mode: 'on', roBinds: [missing] }), auto: spyEntry({ mode: 'auto', rwBinds: [`${missing}:/data`] }) });
      for (const server of ['on', 'auto']) {
        const error = await rejectsWith(host.call({ server, tool: 'whoami', arguments: {} }), 'MCP_SANDBOX_UNAVAILABLE');
        assert.match(error.message, /bind-missing/);
        assert.ok(error.message.includes(missing), error.message);
      }
    });

    it('a namespace the kernel refuses: MCP_SANDBOX_UNAVAILABLE (namespace-refused); "auto" falls back and says so', async () => {
      const configPath = writeConfig(join(root, 'refused'), { on: spyEntry({ mode: 'on' }), auto: spyEntry({ mode: 'auto' }) });
      // berry-mcp itself runs where no new namespace may be made (an unprivileged user in a user
      // namespace that forbids nesting): the kernel refuses bwrap with ENOSPC.
      const result = await runProcess(
        'bwrap',
        [
          '--unshare-user',
          '--disable-userns',
          '--uid',
          '1234',
          '--dev-bind',
          '/',
          '/',
          '--',
          process.execPath,
          BIN,
          'list',
          '--json',
          '--config',
          configPath,
          '--cwd',
          work,
        ],
        { cwd: work, env: { HOME: home } },
      );
      const listed = JSON.parse(result.stdout) as ListResult;
      const on = listed.servers.find((s) => s.name === 'on')!;
      assert.equal(on.status, 'error', result.stdout + result.stderr);
      assert.equal(on.status === 'error' && on.error.code, 'MCP_SANDBOX_UNAVAILABLE');
      assert.match(on.status === 'error' ? on.error.message : '', /namespace-refused/);
      const auto = listed.servers.find((s) => s.name === 'auto')!;
      assert.equal(auto.status, 'connected', result.stdout);
      assert.match(JSON.stringify(auto.status === 'connected' ? auto.warnings : []), /not confined: .*namespace-refused/);
    });
  });
});
