/**
 * A private OpenSSH sshd for the SSH tests: its own host key, config, client key pair and
 * known_hosts in a temp dir; as root it runs inside its own network namespace together with a
 * "remote-only" HTTP(S) server that the test process cannot reach except through SSH.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, chownSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNamespace, type Namespace } from './netns.js';
import { descendants, killPids, netnsOf, processTable } from './proc.js';
import { hasProgram, run } from './run.js';
import { ensureTestUser } from './test-user.js';
import type { SshMachineOptions } from '../../src/remote/machine/index.js';

const SSHD = '/usr/sbin/sshd';
const SFTP_SERVER = '/usr/lib/openssh/sftp-server';
/** Resolves only inside the namespace. */
export const REMOTE_ONLY_HOST = 'remote-only.test';
/** Set by sshd (SetEnv) in every session: present remotely, absent locally. */
export const REMOTE_ENV = { name: 'BERRY_REMOTE_ONLY', value: 'set-by-sshd-SetEnv' } as const;
export const SERVER_EVERYTHING = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

/** sshd is not installed: the suite may skip locally, and must fail in CI. */
export class SshdUnavailableError extends Error {}

export interface RemoteHttp {
  /** Name of the server as the remote machine sees it (only resolvable there with a namespace). */
  readonly hostname: string;
  readonly httpPort: number;
  readonly httpsPort: number | undefined;
  /** PEM of the self-signed certificate (SAN: remote-only.test, localhost, 127.0.0.1). */
  readonly caCert: string | undefined;
  readonly pid: number;
}

export interface Sshd {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly homeDir: string;
  readonly identityFile: string;
  readonly knownHostsFile: string;
  /** `ssh-ed25519 AAAA…` of the server. */
  readonly hostPublicKey: string;
  readonly sshdPid: number;
  /** Scratch directory readable by the test user. */
  readonly dir: string;
  readonly namespace: Namespace | undefined;
  readonly remoteHttp: RemoteHttp;
  /** Runs `command` as the test user through the `ssh` client; resolves with its stdout. */
  exec(command: string): Promise<string>;
  /** Kills sshd's per-connection processes (not the listener): every client sees its connection drop. */
  killConnections(): number;
  /** Freezes them instead (SIGSTOP): connections stay open but go silent. Returns a resume function. */
  pauseConnections(): () => void;
  /**
   * Starts `node SCRIPT ...ARGS` on the remote side (inside the namespace when there is one) and
   * resolves once its stdout prints a line matching `ready`. stop() stops it too.
   */
  startRemoteNode(script: string, args: readonly string[], ready: RegExp): Promise<RemoteNode>;
  stop(): Promise<void>;
}

/**
 * A project directory `name` in `sshd`'s dir with an mcp.json of `servers`, both owned by its test
 * user (who runs the remote servers and reads the file over SFTP). Returns the directory.
 */
export function remoteProject(sshd: Sshd, name: string, servers: Record<string, unknown>): string {
  const { uid, gid } = statSync(sshd.homeDir);
  const project = join(sshd.dir, name);
  mkdirSync(project, { recursive: true });
  const config = join(project, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  for (const path of [project, config]) chownSync(path, uid, gid);
  return project;
}

/** SshMachine options that log in to `sshd` as its test user, trusting only its host key. */
export function sshMachineOptions(sshd: Sshd): SshMachineOptions {
  return {
    host: sshd.host,
    port: sshd.port,
    username: sshd.username,
    identityFile: sshd.identityFile,
    knownHostsFile: sshd.knownHostsFile,
    agent: false,
    ...(sshd.remoteHttp.caCert ? { tls: { ca: sshd.remoteHttp.caCert } } : {}),
  };
}

/** A node process started with `startRemoteNode`. */
export interface RemoteNode {
  readonly pid: number;
  /** The stdout line that matched `ready`. */
  readonly line: string;
  /** Output on stderr so far (bounded), for failure messages. */
  stderrTail(): string;
  stop(): Promise<void>;
}

export interface StartSshdOptions {
  /**
   * Use a network namespace (needs root and `ip`).
   * @default true when possible, unless the environment sets BERRY_SSH_NETNS=0
   */
  readonly namespace?: boolean;
}

/**
 * startSshd for a suite's `before`: where sshd cannot run (not root, no openssh-server) the suite
 * is skipped with a note naming `what`, except in CI, where that is a failure.
 */
export async function startSshdOrSkip(context: Mocha.Context, what: string): Promise<Sshd> {
  try {
    return await startSshd();
  } catch (error) {
    if (error instanceof SshdUnavailableError && process.env.CI !== 'true') {
      console.warn(`    (skipping ${what}: ${error.message})`);
      context.skip();
    }
    throw error;
  }
}

export async function startSshd(options: StartSshdOptions = {}): Promise<Sshd> {
  if (!existsSync(SSHD)) {
    throw new SshdUnavailableError(`${SSHD} is missing: apt-get install -y openssh-server`);
  }
  const user = await ensureTestUser([SERVER_EVERYTHING]);
  const dir = mkdtempSync(join(tmpdir(), 'berry-sshd-'));
  chmodSync(dir, 0o755);
  // Caches of remote sessions (saved catalogs) stay in this temp dir, never in a real home.
  const cacheDir = join(dir, 'cache');
  mkdirSync(cacheDir, { mode: 0o700 });
  if (process.getuid?.() === 0) chownSync(cacheDir, user.uid, statSync(user.homeDir).gid);
  const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async (): Promise<void> => {
    for (const step of cleanups.reverse()) await Promise.resolve(step()).catch(() => {});
    cleanups.length = 0;
  };
  try {
    const wantNamespace = options.namespace ?? (process.env.BERRY_SSH_NETNS !== '0' && process.getuid?.() === 0 && (await hasProgram('ip', ['-V'])));
    const namespace = wantNamespace ? await createNamespace([REMOTE_ONLY_HOST]) : undefined;
    if (namespace) cleanups.push(() => namespace.destroy());
    const host = namespace?.address ?? '127.0.0.1';
    // A private namespace has port 22 to itself.
    const port = namespace ? 22 : await freePort();

    const hostKey = await generateKeyPair(dir, 'host_ed25519');
    const clientKey = await generateKeyPair(dir, 'client_ed25519');
    writeFileSync(join(dir, 'authorized_keys'), `${clientKey.publicLine}\n`, { mode: 0o644 });
    const knownHostsFile = join(dir, 'known_hosts');
    writeFileSync(knownHostsFile, `${port === 22 ? host : `[${host}]:${port}`} ${hostKey.publicLine}\n`);

    const config = join(dir, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${port}`,
        `ListenAddress ${host}`,
        `HostKey ${hostKey.privateFile}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        'UsePAM no',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        'StrictModes no',
        'AllowTcpForwarding yes',
        `AllowUsers ${user.username}`,
        `Subsystem sftp ${SFTP_SERVER}`,
        `SetEnv ${REMOTE_ENV.name}=${REMOTE_ENV.value} XDG_CACHE_HOME=${cacheDir}`,
        'LogLevel INFO',
        '',
      ].join('\n'),
    );
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

    const sshd = spawnIn(namespace, SSHD, ['-D', '-e', '-f', config], ['ignore', 'ignore', 'pipe']);
    cleanups.push(() => stopProcessTree(sshd));
    await waitForLine(sshd, 'stderr', /Server listening on/, 10_000, 'sshd');
    const sshdPid = sshd.pid!;

    const remoteHttp = await startRemoteHttp(namespace, dir);
    cleanups.push(() => stopProcessTree(remoteHttp.child));

    const sshArgs = [
      '-F',
      '/dev/null',
      '-o',
      'BatchMode=yes',
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'IdentityAgent=none',
      '-o',
      `UserKnownHostsFile=${knownHostsFile}`,
      '-o',
      'GlobalKnownHostsFile=/dev/null',
      '-o',
      'StrictHostKeyChecking=yes',
      '-i',
      clientKey.privateFile,
      '-p',
      String(port),
      `${user.username}@${host}`,
    ];
    const netns = namespace ? netnsOf(sshdPid) : undefined;
    return {
      host,
      port,
      username: user.username,
      homeDir: user.homeDir,
      identityFile: clientKey.privateFile,
      knownHostsFile,
      hostPublicKey: hostKey.publicLine,
      sshdPid,
      dir,
      namespace,
      remoteHttp: remoteHttp.info,
      exec: (command) => run('ssh', [...sshArgs, '--', command]),
      killConnections: () => {
        const sessions = descendants(sshdPid).filter((row) => row.comm === 'sshd');
        killPids(
          sessions.map((row) => row.pid),
          'SIGKILL',
        );
        return sessions.length;
      },
      pauseConnections: () => {
        const sessions = descendants(sshdPid)
          .filter((row) => row.comm === 'sshd')
          .map((row) => row.pid);
        killPids(sessions, 'SIGSTOP');
        return () => killPids(sessions, 'SIGCONT');
      },
      startRemoteNode: async (script, args, ready) => {
        const child = spawnIn(namespace, process.execPath, [script, ...args], ['pipe', 'pipe', 'pipe']);
        const stop = (): Promise<void> => stopProcessTree(child);
        cleanups.push(stop);
        let tail = '';
        child.stderr!.on('data', (chunk: Buffer) => {
          tail = (tail + chunk.toString('utf8')).slice(-4096);
        });
        const line = await waitForLine(child, 'stdout', ready, 10_000, `node ${script}`).catch(async (error: unknown) => {
          await stop();
          throw error;
        });
        return { pid: child.pid!, line, stderrTail: () => tail, stop };
      },
      stop: async () => {
        // Whatever the tests left running remotely: sshd's descendants, and (with a namespace)
        // anything else living in it, e.g. a process that escaped with setsid. One by one, by pid.
        const table = processTable();
        const leftovers = descendants(sshdPid, table).map((row) => row.pid);
        if (netns) leftovers.push(...table.filter((row) => row.pid !== sshdPid && netnsOf(row.pid) === netns).map((row) => row.pid));
        killPids(new Set(leftovers), 'SIGKILL');
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

export async function generateKeyPair(dir: string, name: string, type = 'ed25519'): Promise<{ privateFile: string; publicLine: string }> {
  const privateFile = join(dir, name);
  await run('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', name, '-f', privateFile]);
  const [keyType, key] = readFileSync(`${privateFile}.pub`, 'utf8').trim().split(/\s+/);
  return { privateFile, publicLine: `${keyType} ${key}` };
}

function spawnIn(namespace: Namespace | undefined, file: string, args: readonly string[], stdio: Array<'ignore' | 'pipe'>): ChildProcess {
  const argv = namespace ? [...namespace.execPrefix, file, ...args] : [file, ...args];
  // `ip netns exec` execs the program: the child's pid is the program's.
  return spawn(argv[0]!, argv.slice(1), { stdio });
}

async function startRemoteHttp(namespace: Namespace | undefined, dir: string): Promise<{ child: ChildProcess; info: RemoteHttp }> {
  let tlsArgs: string[] = [];
  let caCert: string | undefined;
  if (await hasProgram('openssl', ['version'])) {
    const cert = join(dir, 'http-cert.pem');
    const key = join(dir, 'http-key.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${REMOTE_ONLY_HOST}`,
      '-addext',
      `subjectAltName=DNS:${REMOTE_ONLY_HOST},DNS:localhost,IP:127.0.0.1`,
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    tlsArgs = [cert, key];
    caCert = readFileSync(cert, 'utf8');
  }
  const script = fileURLToPath(new URL('./remote-http-server.js', import.meta.url));
  const child = spawnIn(namespace, process.execPath, [script, ...tlsArgs], ['pipe', 'pipe', 'pipe']);
  const line = await waitForLine(child, 'stdout', /^\{.*\}$/, 10_000, 'remote HTTP server');
  const ports = JSON.parse(line) as { httpPort: number; httpsPort?: number };
  return {
    child,
    info: {
      hostname: namespace ? REMOTE_ONLY_HOST : 'localhost',
      httpPort: ports.httpPort,
      httpsPort: ports.httpsPort,
      caCert,
      pid: child.pid!,
    },
  };
}

function waitForLine(child: ChildProcess, from: 'stdout' | 'stderr', pattern: RegExp, timeoutMs: number, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const stream = child[from]!;
    const timer = setTimeout(() => fail(`${what} did not start within ${timeoutMs} ms`), timeoutMs);
    const fail = (message: string): void => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      reject(new Error(`${message}. Output:\n${text.slice(-2000)}`));
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const line = text.split('\n').find((candidate) => pattern.test(candidate.trim()));
      if (line === undefined) return;
      clearTimeout(timer);
      child.removeListener('exit', onExit);
      // Keep draining so the child never blocks on a full pipe.
      stream.removeListener('data', onData);
      stream.resume();
      resolve(line.trim());
    };
    const onExit = (code: number | null): void => fail(`${what} exited with ${code}`);
    stream.on('data', onData);
    child.once('exit', onExit);
    child.once('error', (error) => fail(`${what} could not start: ${error.message}`));
  });
}

async function stopProcessTree(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  killPids(
    descendants(child.pid).map((row) => row.pid),
    'SIGKILL',
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
