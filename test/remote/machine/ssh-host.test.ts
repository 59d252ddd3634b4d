import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { ConnectionPool, createMcpHost, type ListResult, type LogEvent, type McpHost, type McpHostOptions } from '../../../src/bindings/index.js';
import { isBerryError, type ServerStartError } from '../../../src/common/errors.js';
import { SshMachine, type LifetimeEndEvent } from '../../../src/remote/machine/ssh/ssh-machine.js';
import type { SshMachineOptions } from '../../../src/remote/machine/ssh/ssh-options.js';
import { faultServerPath, httpServerPath, oauthServerPath, PROJECT_ROOT } from '../../support/paths.js';
import { processAlive } from '../../support/processes.js';
import { descendants, netnsOf, processTable, tcpSocketOwners, type ProcessRow } from '../../ssh/proc.js';
import { REMOTE_ENV, REMOTE_ONLY_HOST, SERVER_EVERYTHING, SshdUnavailableError, sshMachineOptions, startSshd, type Sshd } from '../../ssh/sshd.js';
import { waitFor } from '../../support/wait.js';

const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');

interface Whoami {
  readonly pid: number;
  readonly ppid: number;
  readonly cwd: string;
  readonly argv: readonly string[];
  readonly env: Record<string, string | null>;
}

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text: string }>)[0]!.text;
}

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    (value) => assert.fail(`expected a rejection, got ${JSON.stringify(value)}`),
    (error: unknown) => error as Error,
  );
}

function assertCode(error: Error, code: string): void {
  assert.ok(isBerryError(error), `not a BerryError: ${inspect(error)}`);
  assert.equal(error.code, code, error.message);
}

/** The `tools/call` requests a server received, from the copy of its stdin that `tee` kept. */
function toolCalls(stdinLog: string): string[] {
  if (!existsSync(stdinLog)) return [];
  return readFileSync(stdinLog, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { method?: string; params?: { name?: string } })
    .filter((message) => message.method === 'tools/call')
    .map((message) => String(message.params?.name));
}

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    // No agent: the key file given with --identity is the only credential.
    delete childEnv.SSH_AUTH_SOCK;
    const child = spawn(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('createMcpHost over SSH: config, servers and HTTP on the remote machine', function () {
  this.timeout(30_000);
  let sshd: Sshd;
  /** The conversation's working directory on the remote machine, owned by the test user. */
  let project: string;
  let owner: { uid: number; gid: number };
  const machines: SshMachine[] = [];
  const hosts: McpHost[] = [];

  const machine = (overrides: Partial<SshMachineOptions> = {}): SshMachine => {
    const created = new SshMachine({ ...sshMachineOptions(sshd), ...overrides });
    machines.push(created);
    return created;
  };

  const host = (options: McpHostOptions = {}): McpHost => {
    const created = createMcpHost({ machine: options.machine ?? machine(), cwd: project, ...options });
    hosts.push(created);
    return created;
  };

  /** Writes a file on the remote machine as the test user would own it. */
  const writeRemote = (path: string, content: string, mode = 0o644): void => {
    writeFileSync(path, content, { mode });
    chownSync(path, owner.uid, owner.gid);
  };

  /** Writes `{"mcpServers": servers}` to PROJECT/NAME and returns NAME (relative to the remote cwd). */
  const remoteConfig = (name: string, servers: Record<string, unknown>): string => {
    writeRemote(join(project, name), `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
    return name;
  };

  const faultEntry = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    command: 'node',
    args: [faultServerPath],
    ...extra,
  });

  const whoami = async (target: McpHost, server: string, names: readonly string[] = []): Promise<Whoami> =>
    (await target.call({ server, tool: 'whoami', arguments: { names } })).structuredContent as unknown as Whoami;

  /** Processes of the test user on the remote side, sshd's own session processes excepted. */
  const remoteProcesses = (): ProcessRow[] => {
    const table = processTable();
    const netns = sshd.namespace ? netnsOf(sshd.sshdPid) : undefined;
    const candidates = netns ? table.filter((row) => row.pid !== sshd.sshdPid && netnsOf(row.pid) === netns) : descendants(sshd.sshdPid, table);
    return candidates.filter((row) => row.uid === owner.uid && !row.comm.startsWith('sshd'));
  };

  before(async function () {
    try {
      sshd = await startSshd();
    } catch (error) {
      if (error instanceof SshdUnavailableError && process.env.CI !== 'true') {
        console.warn(`    (skipping the SSH host suite: ${error.message})`);
        this.skip();
      }
      throw error;
    }
    const home = statSync(sshd.homeDir);
    owner = { uid: home.uid, gid: home.gid };
    project = join(sshd.dir, 'project');
    mkdirSync(join(project, 'sub'), { recursive: true });
    mkdirSync(join(project, 'conf'));
    for (const dir of [project, join(project, 'sub'), join(project, 'conf')]) chownSync(dir, owner.uid, owner.gid);
  });

  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
    await Promise.all(machines.splice(0).map((m) => m.close()));
  });

  after(async () => {
    await sshd?.stop();
  });

  describe('config and environment', () => {
    it('reads ~/.config/berry/mcp.json in the REMOTE home, and a relative configPath against the remote cwd, as the remote user', async function () {
      const configDir = join(sshd.homeDir, '.config', 'berry');
      const defaultFile = join(configDir, 'mcp.json');
      const before = existsSync(defaultFile) ? readFileSync(defaultFile, 'utf8') : undefined;
      // Never overwrite a real user's config: only the dedicated test user's (root runs).
      if (before !== undefined && process.getuid?.() !== 0) this.skip();
      const createdDirs = ['.config', '.config/berry'].map((d) => join(sshd.homeDir, d)).filter((d) => !existsSync(d));
      await sshd.exec('mkdir -p ~/.config/berry');
      try {
        writeRemote(defaultFile, JSON.stringify({ mcpServers: { 'from-remote-home': faultEntry() } }));
        assert.notEqual(homedir(), sshd.homeDir, 'the local home differs from the remote one');
        const listed = await host().list();
        assert.equal(listed.configPath, defaultFile);
        assert.deepEqual(
          listed.servers.map((s) => [s.name, s.status]),
          [['from-remote-home', 'connected']],
        );
      } finally {
        if (before === undefined) rmSync(defaultFile, { force: true });
        else writeRemote(defaultFile, before);
        for (const dir of createdDirs.reverse()) rmSync(dir, { recursive: true, force: true });
      }

      assert.notEqual(process.cwd(), project);
      remoteConfig('conf/relative.json', { 'from-remote-cwd': faultEntry() });
      const relative = await host({ configPath: 'conf/relative.json' }).list();
      assert.equal(relative.configPath, join(project, 'conf/relative.json'));
      assert.deepEqual(
        relative.servers.map((s) => [s.name, s.status]),
        [['from-remote-cwd', 'connected']],
      );

      // Read as the remote user: a file only root can read is readable here, but not over SSH.
      if (owner.uid !== process.getuid?.()) {
        writeFileSync(join(project, 'root-only.json'), '{"mcpServers":{}}', { mode: 0o600 });
        const error = await rejection(host({ configPath: 'root-only.json' }).list());
        assertCode(error, 'MCP_CONFIG_INVALID');
        assert.match(error.message, /Cannot read the MCP config file .*root-only\.json: permission denied/);
      }
    });

    it('saves catalogs in the REMOTE cache ($XDG_CACHE_HOME there) as the remote user; a later list answers from them', async () => {
      // sshd's SetEnv points XDG_CACHE_HOME of remote sessions into its temp dir.
      const dir = join(sshd.dir, 'cache', 'berry', 'catalogs');
      const config = remoteConfig('conf/catalogs.json', { cataloged: faultEntry({ env: { CATALOG_SECRET: 'ssh-catalog-secret-4711' } }) });
      const cold = await host({ configPath: config, savedCatalogs: true }).list();
      assert.ok(cold.servers[0]?.status === 'connected' && cold.servers[0].cached === undefined);
      await Promise.all(hosts.splice(0).map((h) => h.close()));
      const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
      assert.equal(files.length, 1);
      const file = statSync(join(dir, files[0]!));
      assert.deepEqual([file.uid, file.mode & 0o777], [owner.uid, 0o600]);
      assert.ok(!readFileSync(join(dir, files[0]!), 'utf8').includes('ssh-catalog-secret-4711'));
      const warm = await host({ configPath: config, savedCatalogs: true }).list();
      assert.ok(warm.servers[0]?.status === 'connected' && warm.servers[0].cached !== undefined);
      assert.deepEqual(warm.servers[0].tools, cold.servers[0].tools);
    });

    it('runs server-everything remotely: PATH-resolved node, the remote cwd or the entry cwd, ${VAR} from the remote login environment', async () => {
      const localOnly = `BERRY_LOCAL_ONLY_${randomBytes(3).toString('hex')}`;
      const saved = process.env[REMOTE_ENV.name];
      process.env[REMOTE_ENV.name] = 'local-value-must-not-win';
      process.env[localOnly] = 'set-locally';
      try {
        const everything = { command: 'node', args: [SERVER_EVERYTHING, 'stdio'] };
        const configPath = remoteConfig('everything.json', {
          everything: { ...everything, env: { TOKEN: `\${${REMOTE_ENV.name}}`, LITERAL: 'literal value' } },
          'everything-sub': { ...everything, cwd: 'sub' },
          'local-only': { ...everything, env: { X: `\${${localOnly}}` } },
        });
        const h = host({ configPath });
        const listed = await h.list();
        assert.deepEqual(
          listed.servers.map((s) => [s.name, s.status]),
          [
            ['everything', 'connected'],
            ['everything-sub', 'connected'],
            ['local-only', 'error'],
          ],
        );
        const localOnlyStatus = listed.servers[2]!;
        assert.ok(localOnlyStatus.status === 'error');
        assert.equal(localOnlyStatus.error.code, 'MCP_ENV_MISSING', 'a variable set only locally is missing remotely');

        const env = JSON.parse(textOf(await h.call({ server: 'everything', tool: 'get-env', arguments: {} }))) as Record<string, string>;
        // A configured secret handed back is masked: the resolved entry says which value was
        // expanded, the mask that the server has it.
        const resolved = (await h.readConfig()).servers.find((slot) => slot.name === 'everything');
        assert.ok(resolved?.status === 'ok' && resolved.config.kind === 'stdio');
        assert.equal(resolved.config.env['TOKEN'], REMOTE_ENV.value, '${VAR} expands from the remote login environment');
        assert.equal(env.TOKEN, '***');
        assert.equal(env[REMOTE_ENV.name], '***', 'the server inherits the remote environment (a secret here: masked)');
        assert.equal(env.LITERAL, 'literal value');
        assert.equal(env.USER, sshd.username);
        assert.equal(env.HOME, sshd.homeDir);

        const remoteNode = realpathSync((await sshd.exec('command -v node')).trim());
        for (const [server, cwd] of [
          ['everything', project],
          ['everything-sub', join(project, 'sub')],
        ] as const) {
          const pid = await h.withServer(server, async (connection) => connection.pid);
          assert.ok(pid !== undefined, `${server} has a remote pid`);
          const row = processTable().find((candidate) => candidate.pid === pid);
          assert.ok(row, `${server} (pid ${pid}) is running`);
          assert.equal(readlinkSync(`/proc/${pid}/cwd`), cwd, `${server} runs in ${cwd}`);
          assert.equal(readlinkSync(`/proc/${pid}/exe`), remoteNode, 'the command "node" resolved on the remote PATH');
          assert.equal(row.cmdline, `node ${SERVER_EVERYTHING} stdio`);
          assert.equal(row.uid, owner.uid, 'runs as the remote user');
          if (sshd.namespace) assert.equal(netnsOf(pid), netnsOf(sshd.sshdPid), 'runs on the remote side');
        }
      } finally {
        if (saved === undefined) delete process.env[REMOTE_ENV.name];
        else process.env[REMOTE_ENV.name] = saved;
        delete process.env[localOnly];
      }
    });
  });

  describe('secrets and processes', () => {
    it('keeps env secrets off every command line, and out of the errors and logs of a failing remote server', async () => {
      const canary = `canary-${randomBytes(8).toString('hex')}`;
      const marker = `marker-${randomBytes(8).toString('hex')}`;
      const secretEnv = { TOKEN: canary, FROM_REMOTE: `\${${REMOTE_ENV.name}}` };
      const configPath = remoteConfig('secrets.json', {
        // `--marker-…` is ignored by the server: it shows that the scanner sees the server's command line.
        fault: faultEntry({ args: [faultServerPath, `--${marker}`], env: secretEnv }),
        broken: {
          command: 'node',
          args: ['-e', 'console.error("token=" + process.env.TOKEN + " remote=" + process.env.FROM_REMOTE); process.exit(3)'],
          env: secretEnv,
        },
      });
      const events: LogEvent[] = [];
      const h = host({ configPath, onLog: (event) => events.push(event) });

      const secrets = [canary, REMOTE_ENV.value];
      const leaked: string[] = [];
      let sawMarker = false;
      let scans = 0;
      let scanning = true;
      const scanner = (async () => {
        while (scanning) {
          for (const row of processTable()) {
            if (secrets.some((secret) => row.rawCmdline.includes(secret))) leaked.push(`${row.pid}: ${row.cmdline}`);
            if (row.rawCmdline.includes(marker)) sawMarker = true;
          }
          scans++;
          await sleep(2);
        }
      })();
      let listed: ListResult;
      let seen: Whoami;
      let callError: Error;
      try {
        listed = await h.list();
        seen = await whoami(h, 'fault', ['TOKEN', 'FROM_REMOTE']);
        callError = await rejection(h.call({ server: 'broken', tool: 'anything', arguments: {} }));
        await waitFor(() => sawMarker, 5000, "the scanner to see the server's command line");
      } finally {
        scanning = false;
        await scanner;
      }
      assert.ok(scans > 5, `only ${scans} scans of the process table`);
      assert.deepEqual(leaked, [], 'a secret showed on a command line');
      // The server itself gets the secrets; handed back in a result, they are masked.
      assert.deepEqual(seen.env, { TOKEN: '***', FROM_REMOTE: '***' }, 'the server itself gets the secrets');
      assert.ok(!JSON.stringify(seen).includes(canary));

      const broken = listed.servers.find((s) => s.name === 'broken')!;
      assert.ok(broken.status === 'error');
      assertCode(callError, 'MCP_CONNECT_FAILED');
      const stderrTail = (callError as ServerStartError).stderrTail;
      assert.match(stderrTail, /token=\*\*\* remote=\*\*\*/, 'the stderr came back, redacted');
      const shown = [broken.error.message, inspect(callError, { depth: 10 }), JSON.stringify(events)];
      assert.ok(events.some((event) => event.server === 'broken' && event.kind === 'stderr' && event.message.includes('token=***')));
      for (const text of shown) {
        for (const secret of secrets) assert.ok(!text.includes(secret), `secret in: ${text}`);
      }
    });

    it('close() leaves no remote process behind, a grandchild holding the pipes included', async () => {
      const h = host({ configPath: remoteConfig('close.json', { fault: faultEntry() }) });
      const server = await whoami(h, 'fault');
      const { grandchildPid } = JSON.parse(textOf(await h.call({ server: 'fault', tool: 'spawn_grandchild', arguments: {} }))) as {
        grandchildPid: number;
      };
      const running = remoteProcesses().map((row) => row.pid);
      assert.ok(running.includes(server.pid) && running.includes(grandchildPid), `remote processes: ${running.join(', ')}`);
      await h.close();
      await waitFor(() => remoteProcesses().length === 0, 5000, 'every remote process of the test user to exit').catch((error: Error) => {
        const left = remoteProcesses().map((row) => `${row.pid} (pgid ${row.pgid}, ppid ${row.ppid}) ${row.cmdline}`);
        throw new Error(`${error.message}; left: ${left.join('; ')} (server ${server.pid}, grandchild ${grandchildPid})`);
      });
      assert.ok(!processAlive(server.pid));
      assert.ok(!processAlive(grandchildPid));
    });
  });

  describe('HTTP through the tunnel', () => {
    it('reaches a Streamable HTTP server that only the remote side can reach, by name and by localhost', async () => {
      const remote = await sshd.startRemoteNode(httpServerPath, [], /^\{"port":\d+\}$/);
      try {
        const { port } = JSON.parse(remote.line) as { port: number };
        const names = [...new Set([sshd.remoteHttp.hostname, 'localhost'])];
        assert.equal(names.length, sshd.namespace ? 2 : 1);
        const servers = Object.fromEntries(names.map((name) => [name, { url: `http://${name}:${port}/mcp` }]));
        const h = host({ configPath: remoteConfig('http.json', servers) });
        const listed = await h.list();
        assert.deepEqual(
          listed.servers.map((s) => [s.name, s.status]),
          names.map((name) => [name, 'connected']),
        );
        for (const name of names) {
          const me = (await h.call({ server: name, tool: 'whoami', arguments: {} })).structuredContent as { pid: number; headers: Record<string, string> };
          assert.equal(me.pid, remote.pid, `${name}: the remote server answered`);
          assert.equal(me.headers.host, `${name}:${port}`);
        }
        if (sshd.namespace) {
          assert.equal(sshd.remoteHttp.hostname, REMOTE_ONLY_HOST);
          assert.notEqual(netnsOf(remote.pid), netnsOf('self'), 'the server lives in another network namespace');
          const local = await rejection(fetch(`http://127.0.0.1:${port}/mcp`));
          assert.equal((local.cause as NodeJS.ErrnoException | undefined)?.code, 'ECONNREFUSED', 'not reachable from here');
        } else {
          // Loopback fallback: the server's peers must be sshd, never this process.
          const owners = tcpSocketOwners(port, 'remote');
          assert.ok(owners.length > 0 && !owners.includes(process.pid), `peers: ${owners.join(', ')}`);
          assert.ok(
            owners.every((pid) =>
              processTable()
                .find((row) => row.pid === pid)
                ?.comm.startsWith('sshd'),
            ),
          );
        }
      } finally {
        await remote.stop();
      }
    });
  });

  describe('OAuth over SSH', () => {
    it('signs in with the browser and listener here, the requests and the token files there', async () => {
      const remote = await sshd.startRemoteNode(oauthServerPath, [], /^\{"port":\d+\}$/);
      try {
        const { port } = JSON.parse(remote.line) as { port: number };
        const m = machine();
        const tokenDir = join(project, 'oauth-tokens');
        let callbacks = 0;
        // The "browser": the authorization server is reached the way the user's browser would
        // reach a remote service (here: through the tunnel), the /callback redirect locally.
        const browse = async (start: string): Promise<void> => {
          const { fetch: undiciFetch } = await import('undici');
          let next = start;
          for (let hop = 0; hop < 10; hop++) {
            const isCallback = new URL(next).pathname === '/callback';
            if (isCallback) callbacks++;
            const response = isCallback
              ? await fetch(next, { redirect: 'manual' })
              : await undiciFetch(next, { redirect: 'manual', dispatcher: m.dispatcher() });
            const location = response.headers.get('location');
            await response.body?.cancel();
            if (!location) return;
            next = new URL(location, next).href;
          }
        };
        const h = createMcpHost({
          machine: m,
          cwd: project,
          // 127.0.0.1 is the remote side's loopback (another network namespace when there is one).
          configPath: remoteConfig('oauth.json', { docs: { url: `http://127.0.0.1:${port}/mcp` } }),
          tokenDir,
          onAuthorizationUrl: browse,
        });
        hosts.push(h);
        const result = await h.call({ server: 'docs', tool: 'whoami', arguments: {} });
        assert.match(JSON.stringify(result), /offline_access/);
        assert.equal(callbacks, 1, 'the redirect reached the local listener');
        const files = readdirSync(tokenDir).filter((f) => f.endsWith('.json'));
        assert.equal(files.length, 1);
        const stat = statSync(join(tokenDir, files[0]!));
        assert.equal(stat.uid, owner.uid, 'written over SFTP by the remote user');
        assert.equal(stat.mode & 0o777, 0o600);
        assert.equal(statSync(tokenDir).mode & 0o777, 0o700);
      } finally {
        await remote.stop();
      }
    });
  });

  describe('connection lifetimes and the pool', () => {
    it('a dropped SSH connection fails the running call promptly; the next call gets a new connection and server, with no replay', async () => {
      const stdinLog = join(project, `stdin-${randomBytes(4).toString('hex')}.log`);
      // tee keeps a copy of everything each server process receives on stdin.
      const configPath = remoteConfig('recorded.json', {
        recorded: { command: 'sh', args: ['-c', 'tee -a "$STDIN_LOG" | exec node "$0"', faultServerPath], env: { STDIN_LOG: stdinLog } },
      });
      const m = machine();
      const ended: LifetimeEndEvent[] = [];
      m.onLifetimeEnd((event) => ended.push(event));
      const h = host({ machine: m, configPath });
      const first = await whoami(h, 'recorded');
      const firstLifetime = await m.lifetime();

      const sleeping = rejection(h.call({ server: 'recorded', tool: 'sleep', arguments: { ms: 5000 } }));
      await waitFor(() => toolCalls(stdinLog).includes('sleep'), 5000, 'the sleep call to reach the server');
      const killedAt = performance.now();
      assert.ok(sshd.killConnections() > 0);
      const error = await sleeping;
      const failedAfterMs = performance.now() - killedAt;
      assertCode(error, 'MCP_TRANSPORT_CLOSED');
      assert.ok(failedAfterMs < 2000, `the call failed ${failedAfterMs.toFixed(0)} ms after the connection dropped`);
      assert.deepEqual(
        ended.map((event) => event.lifetime),
        [firstLifetime],
      );

      const second = await whoami(h, 'recorded');
      assert.notEqual(second.pid, first.pid, 'a new server process');
      assert.notEqual(await m.lifetime(), firstLifetime, 'a new SSH connection');
      await waitFor(() => !processAlive(first.pid), 5000, 'the server of the dropped connection to exit');
      // Once the host is closed no server can receive anything more: the record is complete.
      await h.close();
      assert.deepEqual(toolCalls(stdinLog), ['whoami', 'sleep', 'whoami'], 'the killed call was not replayed');
    });

    it('shares a server only within one SSH connection lifetime', async () => {
      const configPath = remoteConfig('pool.json', { fault: faultEntry() });
      const pool = new ConnectionPool();
      const m1 = machine();
      const m2 = machine();
      assert.equal(m1.identity, m2.identity);
      const a = host({ machine: m1, configPath, pool });
      const sameMachine = host({ machine: m1, configPath, pool });
      const otherConnection = host({ machine: m2, configPath, pool });
      try {
        const p1 = (await whoami(a, 'fault')).pid;
        assert.equal((await whoami(a, 'fault')).pid, p1, 'two calls in one lifetime share the server');
        assert.equal((await whoami(sameMachine, 'fault')).pid, p1, 'another host on the same connection shares it too');
        assert.notEqual((await whoami(otherConnection, 'fault')).pid, p1, 'another SSH connection to the same machine does not');

        const firstLifetime = await m1.lifetime();
        await m1.release();
        const p2 = (await whoami(a, 'fault')).pid;
        assert.notEqual(await m1.lifetime(), firstLifetime);
        assert.notEqual(p2, p1, 'a new lifetime gets a new server');
        assert.equal((await whoami(sameMachine, 'fault')).pid, p2);
        await waitFor(() => !processAlive(p1), 5000, 'the server of the released connection to exit');
      } finally {
        await pool.close();
      }
    });

    it('closes an idle SSH connection once its last MCP connection has closed', async () => {
      const m = machine();
      const ended: Array<LifetimeEndEvent & { at: number }> = [];
      m.onLifetimeEnd((event) => ended.push({ ...event, at: performance.now() }));
      const closedAt: number[] = [];
      const h = host({
        machine: m,
        configPath: remoteConfig('idle.json', { fault: faultEntry() }),
        idleTimeoutMs: 500,
        onLog: (event) => {
          if (event.kind === 'closed' && /idle for 500 ms/.test(event.message)) closedAt.push(performance.now());
        },
      });
      const { pid } = await whoami(h, 'fault');
      const lifetime = await m.lifetime();
      const idleFrom = performance.now();
      await waitFor(() => ended.length === 1, 5000, 'the idle SSH connection to close');
      const afterMs = ended[0]!.at - idleFrom;
      assert.equal(ended[0]!.lifetime, lifetime);
      assert.equal(ended[0]!.error, undefined, 'an orderly close');
      assert.ok(afterMs >= 500 && afterMs < 4000, `closed after ${afterMs.toFixed(0)} ms`);
      assert.equal(closedAt.length, 1);
      assert.ok(closedAt[0]! - idleFrom >= 450 && closedAt[0]! < ended[0]!.at, 'the MCP connection closed first, after its idle timeout');
      await waitFor(() => !processAlive(pid), 5000, 'the remote server to exit');
      // The host still works: the next call opens a new connection.
      assert.notEqual((await whoami(h, 'fault')).pid, pid);
      assert.notEqual(await m.lifetime(), lifetime);
    });
  });

  describe('host keys', () => {
    it('refuses an unknown host key with MACHINE_UNAVAILABLE through list and call; acceptUnknownHostKey accepts it', async () => {
      const configPath = remoteConfig('keys.json', { fault: faultEntry() });
      const empty = join(sshd.dir, 'known_hosts.empty-for-host');
      writeFileSync(empty, '');
      const refused = host({ machine: machine({ knownHostsFile: empty }), configPath });
      for (const operation of [refused.list(), refused.call({ server: 'fault', tool: 'echo', arguments: { text: 'x' } })]) {
        const error = await rejection(operation);
        assertCode(error, 'MACHINE_UNAVAILABLE');
        assert.match(error.message, /not in .*known_hosts\.empty-for-host/);
        assert.match(error.message, /acceptUnknownHostKey/);
        assert.ok(error.message.includes(`${sshd.username}@${sshd.host}:${sshd.port}`), error.message);
      }
      const accepted = host({ machine: machine({ knownHostsFile: join(sshd.dir, 'known_hosts.absent'), acceptUnknownHostKey: true }), configPath });
      assert.deepEqual(
        (await accepted.list()).servers.map((s) => [s.name, s.status]),
        [['fault', 'connected']],
      );
      assert.equal(textOf(await accepted.call({ server: 'fault', tool: 'echo', arguments: { text: 'over ssh' } })), 'over ssh');
    });
  });

  describe('CLI --ssh', () => {
    let cliHome: string;
    let target: string[];

    before(() => {
      // The CLI reads ~/.ssh/known_hosts: a HOME of its own holds the harness's file.
      cliHome = join(sshd.dir, 'cli-home');
      mkdirSync(join(cliHome, '.ssh'), { recursive: true });
      copyFileSync(sshd.knownHostsFile, join(cliHome, '.ssh', 'known_hosts'));
      remoteConfig('conf/cli.json', { fault: faultEntry() });
      target = ['--ssh', `${sshd.username}@${sshd.host}:${sshd.port}`, '--identity', sshd.identityFile, '--config', 'conf/cli.json', '--cwd', project];
    });

    it('list --json lists the remote servers; an unknown host needs --accept-host-key', async () => {
      const listed = await cli(['list', '--json', ...target], { HOME: cliHome });
      assert.equal(listed.code, 0, listed.stderr);
      const result = JSON.parse(listed.stdout) as { configPath: string; servers: Array<{ name: string; status: string; tools?: Array<{ name: string }> }> };
      assert.equal(result.configPath, join(project, 'conf/cli.json'));
      assert.deepEqual(
        result.servers.map((s) => [s.name, s.status]),
        [['fault', 'connected']],
      );
      assert.ok(result.servers[0]!.tools!.some((tool) => tool.name === 'whoami'));

      const strangerHome = join(sshd.dir, 'cli-home-empty');
      mkdirSync(strangerHome, { recursive: true });
      const refused = await cli(['list', '--json', ...target], { HOME: strangerHome });
      assert.equal(refused.code, 2);
      assert.equal((JSON.parse(refused.stdout) as { error: { code: string } }).error.code, 'MACHINE_UNAVAILABLE');
      const accepted = await cli(['list', '--json', '--accept-host-key', ...target], { HOME: strangerHome });
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.equal(dirname(JSON.parse(accepted.stdout).configPath as string), join(project, 'conf'));
    });

    it('call --json runs the tool on the remote machine, in the remote cwd', async () => {
      const called = await cli(['call', 'fault', 'whoami', JSON.stringify({ names: [REMOTE_ENV.name] }), '--json', ...target], { HOME: cliHome });
      assert.equal(called.code, 0, called.stderr);
      const me = (JSON.parse(called.stdout) as { structuredContent: Whoami }).structuredContent;
      assert.equal(me.cwd, project);
      assert.equal(me.env[REMOTE_ENV.name], REMOTE_ENV.value);
      assert.ok(!processAlive(me.pid), 'the CLI stopped the remote server on exit');
    });

    it('describe and run work over --ssh too: the script runs here, its calls there', async () => {
      const described = await cli(['describe', 'fault', 'whoami', '--json', ...target], { HOME: cliHome });
      assert.equal(described.code, 0, described.stderr);
      assert.equal((JSON.parse(described.stdout) as { name: string }).name, 'whoami');
      const script = `const r = await tools.mcp_call({ server: "fault", tool: "whoami", arguments: { names: ["${REMOTE_ENV.name}"] } });\nreturn r.structuredContent;`;
      const ran = await cli(['run', '-', '--json', ...target], { HOME: cliHome }, script);
      assert.equal(ran.code, 0, ran.stderr);
      const record = JSON.parse(ran.stdout) as { ok: boolean; result: Whoami };
      assert.equal(record.ok, true);
      assert.equal(record.result.cwd, project);
      assert.equal(record.result.env[REMOTE_ENV.name], REMOTE_ENV.value);
    });
  });
});
