/**
 * Attacks on confinement (issue 31, part 2): a confined server choosing its own next mounts, and
 * a confined server keeping root's rights. Each attack is the cheapest move of a hostile server
 * (the sandbox spy's `swap` and `write` tools), played against real bubblewrap and real starts.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMcpHost, type McpHost } from '../../src/bindings/index.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { runProcess } from '../support/processes.js';
import { writeConfig } from '../support/write-config.js';
import { ensureTestUser, type TestUser } from '../ssh/test-user.js';
import { CONFINED_ID, giveToConfined, hasBwrap, rejectsWith, ScratchHomeMachine, scratchDir, spy, spyEntry, TEST_BINDS } from '../sandbox/helpers.js';

const isRoot = process.getuid?.() === 0;
const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');
const MARKER = 'HOST-ONLY-MARKER\n';

describe('attacks on confinement: the confined server against its next start, and against root', function () {
  this.timeout(90_000);
  let root: string;
  let home: string;
  let work: string;
  /** A host directory no confined server is given: what every swap aims at. */
  let secret: string;
  let configs = 0;
  const hosts: McpHost[] = [];

  const configFor = (servers: Record<string, unknown>): string => writeConfig(join(root, `config-${++configs}`), servers);
  const hostOn = (configPath: string): McpHost => {
    const host = createMcpHost({ machine: new ScratchHomeMachine(home), cwd: work, configPath });
    hosts.push(host);
    return host;
  };
  /** Starts `server` once, lets it play `move`, closes: the next start is the one under attack. */
  const firstRun = async (configPath: string, server: string, move: Record<string, unknown>): Promise<void> => {
    const host = hostOn(configPath);
    assert.deepEqual(await spy(host, server, 'swap', move), { ok: true });
    await host.close();
  };
  /** A directory a confined server may write (its uid's, and 0777: the server before the fix, root without capabilities, too), or root's. */
  const dir = (path: string, owner: 'confined' | 'root' = 'confined'): string => {
    mkdirSync(path, { recursive: true });
    if (owner === 'confined') {
      giveToConfined(path);
      chmodSync(path, 0o777);
    }
    return path;
  };

  before(function () {
    if (!hasBwrap()) {
      if (process.env.CI === 'true') throw new Error('bubblewrap (bwrap) is missing: apt-get install -y bubblewrap');
      this.skip();
    }
    root = scratchDir('confinement-');
    home = join(root, 'home');
    mkdirSync(home);
    work = dir(join(root, 'work'));
    secret = dir(join(root, 'host-secret'), 'root');
    writeFileSync(join(secret, 'marker'), MARKER);
    dir(join(secret, 'inner'), 'root');
    writeFileSync(join(secret, 'inner', 'marker'), MARKER);
  });

  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
  });

  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  describe('a confined server never chooses its own next mounts', () => {
    it('swapping an rw bind source for a symlink to a host directory: the next start refuses it, naming entry, bind and link; the others keep working', async () => {
      dir(join(work, 'data'));
      const configPath = configFor({ spy: spyEntry({ mode: 'on', workspace: 'rw', rwBinds: ['./data:/data'] }), bystander: spyEntry({ mode: 'on' }) });
      await firstRun(configPath, 'spy', { path: '/workspace/data', target: secret });
      const next = hostOn(configPath);
      const error = await rejectsWith(next.call({ server: 'spy', tool: 'read', arguments: { path: '/data/marker' } }), 'MCP_SANDBOX_UNAVAILABLE');
      assert.equal((error as unknown as { reason: string }).reason, 'bind-symlink', error.message);
      assert.equal((error as unknown as { symlink: string }).symlink, join(work, 'data'));
      for (const part of ['"spy"', `${join(work, 'data')}:/data (rwBinds)`, secret, 'remove it'])
        assert.ok(error.message.includes(part), `${part} missing: ${error.message}`);
      assert.equal(typeof (await spy<{ pid: number }>(next, 'bystander', 'whoami')).pid, 'number');
      assert.equal(readFileSync(join(secret, 'marker'), 'utf8'), MARKER);
    });

    it('a symlink in an intermediate component of a bind source is refused too', async () => {
      dir(join(work, 'mid'));
      dir(join(work, 'mid', 'inner'));
      const configPath = configFor({ spy: spyEntry({ mode: 'on', workspace: 'rw', roBinds: ['./mid/inner:/inner'] }) });
      await firstRun(configPath, 'spy', { path: '/workspace/mid', target: secret });
      const error = await rejectsWith(
        hostOn(configPath).call({ server: 'spy', tool: 'read', arguments: { path: '/inner/marker' } }),
        'MCP_SANDBOX_UNAVAILABLE',
      );
      assert.equal((error as unknown as { symlink: string }).symlink, join(work, 'mid'));
      assert.match(error.message, /passes through the symlink/);
    });

    it('another confined server of the same config plants the link in a directory only it can write', async () => {
      dir(join(root, 'shared'));
      dir(join(root, 'shared', 'tools'));
      const configPath = configFor({
        writer: spyEntry({ mode: 'on', rwBinds: [`${join(root, 'shared')}:/shared`] }),
        reader: spyEntry({ mode: 'on', roBinds: [`${join(root, 'shared', 'tools')}:/tools`] }),
      });
      await firstRun(configPath, 'writer', { path: '/shared/tools', target: secret });
      const error = await rejectsWith(
        hostOn(configPath).call({ server: 'reader', tool: 'read', arguments: { path: '/tools/marker' } }),
        'MCP_SANDBOX_UNAVAILABLE',
      );
      assert.equal((error as unknown as { reason: string }).reason, 'bind-symlink', error.message);
    });

    it('racing the check: while another server flips a bind source between its directory and a link, no start mounts the host directory', async () => {
      const shared = dir(join(root, 'racing'));
      dir(join(shared, 'tools'));
      writeFileSync(join(shared, 'tools', 'marker'), 'genuine\n');
      const configPath = configFor({
        flipper: spyEntry({ mode: 'on', rwBinds: [`${shared}:/shared`] }),
        reader: spyEntry({ mode: 'on', roBinds: [`${join(shared, 'tools')}:/tools`] }),
      });
      const flipHost = hostOn(configPath);
      await spy(flipHost, 'flipper', 'whoami');
      let flipping = true;
      const flipped = spy<{ flips: number }>(flipHost, 'flipper', 'flip', { path: '/shared/tools', target: secret, ms: 4000 }).finally(
        () => (flipping = false),
      );
      const seen: string[] = [];
      while (flipping) {
        const host = hostOn(configPath);
        const outcome = await spy<{ text?: string; error?: string }>(host, 'reader', 'read', { path: '/tools/marker' }).then(
          (answer) => answer.text ?? answer.error ?? '?',
          (error: Error & { reason?: string; code?: string }) => error.reason ?? `${error.code}: ${error.message.slice(0, 160)}`,
        );
        seen.push(outcome);
        await host.close();
      }
      assert.ok((await flipped).flips > 100, 'the flipper hardly ran');
      assert.ok(!seen.includes(MARKER), `a start mounted the host directory: ${JSON.stringify(seen)}`);
      assert.ok(seen.length >= 3, JSON.stringify(seen));
    });

    it("the private-home variant: a bind source inside the server's own home", async () => {
      const privateHome = join(home, '.config/berry/mcp-homes/spy');
      dir(join(privateHome, 'plugins'));
      const configPath = configFor({ spy: spyEntry({ mode: 'on', roBinds: ['~/.config/berry/mcp-homes/spy/plugins:/plugins'] }) });
      // Inside, the private home is mounted over the real home's path.
      await firstRun(configPath, 'spy', { path: join(home, 'plugins'), target: secret });
      const error = await rejectsWith(
        hostOn(configPath).call({ server: 'spy', tool: 'read', arguments: { path: '/plugins/marker' } }),
        'MCP_SANDBOX_UNAVAILABLE',
      );
      assert.equal((error as unknown as { symlink: string }).symlink, join(privateHome, 'plugins'));
    });

    it('a mount point inside the private home moved onto a host directory: bwrap never creates a file there', async () => {
      const settings = join(root, 'settings.json');
      writeFileSync(settings, '{}\n');
      const hostDir = dir(join(root, 'not-the-servers'), 'root');
      const configPath = configFor({ spy: spyEntry({ mode: 'on', roBinds: [`${settings}:${join(home, '.tool', 'config.json')}`] }) });
      // bwrap sets up under /newroot with the host at /oldroot: a link there reaches the host.
      await firstRun(configPath, 'spy', { path: join(home, '.tool'), target: `/oldroot${hostDir}` });
      const outcome = await hostOn(configPath)
        .call({ server: 'spy', tool: 'whoami', arguments: {} })
        .then(
          (result) => result,
          (error: unknown) => error,
        );
      assert.equal(existsSync(join(hostDir, 'config.json')), false, 'the next start created a file on the host where the server pointed');
      const error = await rejectsWith(Promise.reject(outcome), 'MCP_SANDBOX_UNAVAILABLE').catch(() => assert.fail(`not refused: ${JSON.stringify(outcome)}`));
      assert.equal((error as unknown as { reason: string }).reason, 'bind-symlink', error.message);
    });

    it("a bwrap planted on the server's PATH in its rw workspace never runs, not even to probe: the next start refuses it", async () => {
      const bin = dir(join(work, 'bin'));
      const ran = join(root, 'planted-bwrap-ran');
      const configPath = configFor({ spy: spyEntry({ mode: 'on', workspace: 'rw' }, { env: { PATH: `${bin}:/usr/bin:/bin` } }) });
      const first = hostOn(configPath);
      const planted = `#!/bin/sh\necho "$(id -u)" > ${ran}\nexec /usr/bin/bwrap "$@"\n`;
      assert.deepEqual(await spy(first, 'spy', 'write', { path: '/workspace/bin/bwrap', text: planted, mode: 0o755 }), { ok: true });
      await first.close();
      const outcome = await hostOn(configPath)
        .call({ server: 'spy', tool: 'whoami', arguments: {} })
        .then(
          (result) => result,
          (error: unknown) => error,
        );
      assert.equal(existsSync(ran), false, `the planted bwrap ran outside the sandbox as uid ${existsSync(ran) ? readFileSync(ran, 'utf8').trim() : ''}`);
      const error = await rejectsWith(Promise.reject(outcome), 'MCP_SANDBOX_UNAVAILABLE').catch(() => assert.fail(`not refused: ${JSON.stringify(outcome)}`));
      assert.equal((error as unknown as { reason: string }).reason, 'bwrap-untrusted', error.message);
      assert.ok(error.message.includes(join(bin, 'bwrap')), error.message);
    });

    it("a rw mount holding berry-mcp's own config and state is refused (the server could rewrite its own sandbox)", async () => {
      const configPath = configFor({ spy: spyEntry({ mode: 'on', rwBinds: [`${home}:/h`] }) });
      const error = await rejectsWith(hostOn(configPath).call({ server: 'spy', tool: 'whoami', arguments: {} }), 'MCP_SANDBOX_UNAVAILABLE');
      assert.equal((error as unknown as { reason: string }).reason, 'bind-permission', error.message);
      assert.ok(error.message.includes(join(home, '.config/berry')), error.message);
    });
  });

  describe('as root, a confined server owns nothing on the host', () => {
    before(function () {
      if (!isRoot) this.skip();
    });

    it('it runs as uid and gid 65534 with no groups and no capabilities, and cannot read /etc/shadow', async () => {
      const host = hostOn(configFor({ spy: spyEntry({ mode: 'on' }) }));
      assert.deepEqual(await spy(host, 'spy', 'read', { path: '/etc/shadow' }), { error: 'EACCES' });
      const status = (await spy<{ text: string }>(host, 'spy', 'read', { path: '/proc/self/status' })).text;
      const field = (name: string): string => (new RegExp(`^${name}:[ \\t]*(.*)$`, 'm').exec(status)?.[1] ?? '').trim();
      assert.deepEqual(field('Uid').split(/\s+/), ['65534', '65534', '65534', '65534']);
      assert.deepEqual(field('Gid').split(/\s+/), ['65534', '65534', '65534', '65534']);
      assert.equal(field('Groups'), '');
      for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) assert.match(field(set), /^0+$/, `${set}: ${field(set)}`);
      assert.equal(field('NoNewPrivs'), '1');
    });

    it('an rw bind of a root-owned directory is refused at start, naming the path and the fix', async () => {
      const rootOwned = dir(join(root, 'root-owned'), 'root');
      writeFileSync(join(rootOwned, 'file'), 'root data\n');
      const host = hostOn(configFor({ spy: spyEntry({ mode: 'on', rwBinds: [`${rootOwned}:/data`] }) }));
      const error = await rejectsWith(
        host.call({ server: 'spy', tool: 'write', arguments: { path: '/data/file', text: 'overwritten' } }),
        'MCP_SANDBOX_UNAVAILABLE',
      );
      assert.equal((error as unknown as { reason: string }).reason, 'bind-permission', error.message);
      assert.ok(error.message.includes(`chown -R 65534:65534 ${rootOwned}`), error.message);
      assert.equal(readFileSync(join(rootOwned, 'file'), 'utf8'), 'root data\n');
    });

    it('through an rw bind it was given, it still cannot write a root-owned file there', async () => {
      const given = dir(join(root, 'given'));
      writeFileSync(join(given, 'root-file'), 'root data\n', { mode: 0o644 });
      const host = hostOn(configFor({ spy: spyEntry({ mode: 'on', rwBinds: [`${given}:/data`] }) }));
      assert.deepEqual(await spy(host, 'spy', 'write', { path: '/data/root-file', text: 'overwritten' }), { error: 'EACCES' });
      assert.deepEqual(await spy(host, 'spy', 'write', { path: '/data/own-file', text: 'mine' }), { ok: true });
      assert.equal(readFileSync(join(given, 'root-file'), 'utf8'), 'root data\n');
    });
  });

  describe('as an ordinary user (the CLI run as an unprivileged account)', () => {
    let user: TestUser | undefined;
    let userRoot: string;
    let userWork: string;
    let userSecret: string;
    let configPath: string;
    const cli = (...args: string[]): ReturnType<typeof runProcess> => {
      const line = [process.execPath, BIN, ...args, '--json', '--config', configPath, '--cwd', userWork];
      return isRoot
        ? runProcess('runuser', ['-u', user!.username, '--', 'env', `HOME=${user!.homeDir}`, ...line], { cwd: userWork })
        : runProcess(line[0]!, line.slice(1), { cwd: userWork });
    };
    const answer = (stdout: string): Record<string, unknown> =>
      JSON.parse((JSON.parse(stdout) as { content: Array<{ text: string }> }).content[0]!.text) as Record<string, unknown>;

    before(async function () {
      user = await ensureTestUser([BIN, ...TEST_BINDS]).catch((error: Error) => {
        if (process.env.CI === 'true') throw error;
        return undefined;
      });
      if (!user) this.skip();
      userRoot = scratchDir('confinement-user-');
      userWork = join(userRoot, 'work');
      userSecret = join(userRoot, 'secret');
      mkdirSync(join(userWork, 'data'), { recursive: true });
      mkdirSync(userSecret);
      writeFileSync(join(userSecret, 'marker'), MARKER);
      chmodSync(userSecret, 0o700);
      for (const path of [userWork, join(userWork, 'data'), userSecret, join(userSecret, 'marker')]) chownSync(path, user!.uid, user!.uid);
      configPath = writeConfig(join(userRoot, 'config'), { spy: spyEntry({ mode: 'on', workspace: 'rw', rwBinds: ['./data:/data'] }) });
    });

    after(() => {
      if (!user) return;
      rmSync(join(user.homeDir, '.config/berry/mcp-homes/spy'), { recursive: true, force: true });
      rmSync(userRoot, { recursive: true, force: true });
    });

    it("the server is uid 65534 inside its user namespace; what it writes is the user's on the host", async () => {
      const who = await cli('call', 'spy', 'whoami');
      assert.equal(who.code, 0, who.stdout + who.stderr);
      assert.equal(answer(who.stdout).uid, CONFINED_ID, who.stdout);
      // Unprivileged, bwrap cannot change the host uid: the user namespace maps 65534 to the user.
      const wrote = await cli('call', 'spy', 'write', 'path=/workspace/by-the-server', 'text=x');
      assert.equal(wrote.code, 0, wrote.stdout + wrote.stderr);
      assert.equal(statSync(join(userWork, 'by-the-server')).uid, user!.uid);
    });

    it('the symlink swap of its rw bind is refused at the next start (a new CLI process)', async () => {
      const swap = await cli('call', 'spy', 'swap', 'path=/workspace/data', `target=${userSecret}`);
      assert.equal(swap.code, 0, swap.stdout + swap.stderr);
      const next = await cli('call', 'spy', 'read', 'path=/data/marker');
      assert.ok(!next.stdout.includes('HOST-ONLY-MARKER'), `the next start mounted the user's own secret: ${next.stdout}`);
      assert.notEqual(next.code, 0, next.stdout);
      assert.match(next.stdout + next.stderr, /bind-symlink/);
    });
  });
});
