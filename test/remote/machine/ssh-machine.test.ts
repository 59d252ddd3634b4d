import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { request } from 'undici';
import { isBerryError } from '../../../src/common/errors.js';
import type { MachineProcess } from '../../../src/remote/machine/machine.js';
import { SshMachine, type LifetimeEndEvent } from '../../../src/remote/machine/ssh/ssh-machine.js';
import type { SshMachineOptions } from '../../../src/remote/machine/ssh/ssh-options.js';
import { isAlive, netnsOf, processTable, tcpSocketOwners } from '../../ssh/proc.js';
import { ProcessTransport } from '../../ssh/process-transport.js';
import { run } from '../../ssh/run.js';
import { generateKeyPair, REMOTE_ENV, SERVER_EVERYTHING, SshdUnavailableError, sshMachineOptions, startSshd, type Sshd } from '../../ssh/sshd.js';
import { waitFor } from '../../support/wait.js';

/** Collects a stream to a string. */
function collect(stream: NodeJS.ReadableStream): { text: () => string } {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { text: () => text };
}

/** Resolves with the first stdout line matching `pattern`. */
function waitForStdout(process: MachineProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const line = text.split('\n').find((candidate) => pattern.test(candidate));
      if (line !== undefined) {
        process.stdout.removeListener('data', onData);
        resolve(line);
      }
    };
    process.stdout.on('data', onData);
    void process.exited.then((exit) => reject(new Error(`exited before ${pattern}: ${JSON.stringify(exit)}; stdout ${text}`)));
  });
}

describe('SshMachine against a real OpenSSH sshd', function () {
  this.timeout(60_000);
  let sshd: Sshd;
  let workDir: string;
  const machines: SshMachine[] = [];

  const machine = (overrides: Partial<SshMachineOptions> = {}): SshMachine => {
    const created = new SshMachine({ ...sshMachineOptions(sshd), ...overrides });
    machines.push(created);
    return created;
  };

  const expectUnavailable = async (promise: Promise<unknown>, pattern: RegExp): Promise<Error> => {
    const error = await promise.then(
      () => assert.fail('expected a MACHINE_UNAVAILABLE error'),
      (caught: unknown) => caught as Error,
    );
    assert.ok(isBerryError(error), `not a BerryError: ${error}`);
    assert.equal(error.code, 'MACHINE_UNAVAILABLE');
    assert.match(error.message, pattern);
    assert.ok(error.message.includes(`${sshd.username}@${sshd.host}:${sshd.port}`), error.message);
    assert.ok(!error.message.includes('PRIVATE KEY'), 'key material in message');
    return error;
  };

  before(async function () {
    try {
      sshd = await startSshd();
    } catch (error) {
      if (error instanceof SshdUnavailableError && process.env.CI !== 'true') {
        console.warn(`    (skipping the SSH suite: ${error.message})`);
        this.skip();
      }
      throw error;
    }
    workDir = join(sshd.dir, 'work dir');
    mkdirSync(workDir, { mode: 0o777 });
    chmodSync(workDir, 0o777);
  });

  afterEach(async () => {
    await Promise.all(machines.splice(0).map((m) => m.close()));
  });

  after(async () => {
    await sshd?.stop();
  });

  describe('connect and host keys', () => {
    it('connects with the key file; identity and lifetime; concurrent callers share one connect', async () => {
      const m = machine();
      assert.equal(m.identity, `ssh:${sshd.username}@${sshd.host}:${sshd.port}`);
      const ids = await Promise.all([m.lifetime(), m.lifetime(), m.lifetime(), m.env().then(() => m.lifetime())]);
      assert.equal(new Set(ids).size, 1);
      assert.match(ids[0]!, /^\d+-[0-9a-f]{12}$/);
      assert.equal(await m.lifetime(), ids[0]);
    });

    it('refuses an unknown host key with the key type, SHA256 fingerprint and how to accept it', async () => {
      const empty = join(sshd.dir, 'known_hosts.empty');
      writeFileSync(empty, '');
      const error = await expectUnavailable(machine({ knownHostsFile: empty }).lifetime(), /not in .*known_hosts\.empty/);
      const fingerprint = (await run('ssh-keygen', ['-lf', `${sshd.knownHostsFile}`])).split(' ')[1]!;
      assert.ok(error.message.includes(`ssh-ed25519 key ${fingerprint}`), error.message);
      assert.match(error.message, /ssh-keyscan -p \d+ -t ssh-ed25519 /);
      assert.match(error.message, /acceptUnknownHostKey/);
    });

    it('accepts an unknown host key with acceptUnknownHostKey, and pins it', async () => {
      const m = machine({ knownHostsFile: join(sshd.dir, 'known_hosts.missing'), acceptUnknownHostKey: true });
      const ended: LifetimeEndEvent[] = [];
      m.onLifetimeEnd((event) => ended.push(event));
      const first = await m.lifetime();
      sshd.killConnections();
      await waitFor(() => ended.length === 1, 5000, 'the lifetime to end');
      // The pinned key is offered again by the next connection: still accepted.
      assert.notEqual(await m.lifetime(), first);
    });

    it('accepts hashed known_hosts entries', async () => {
      const hashedFile = join(sshd.dir, 'known_hosts.hashed');
      copyFileSync(sshd.knownHostsFile, hashedFile);
      await run('ssh-keygen', ['-H', '-f', hashedFile]);
      assert.match(readFileSync(hashedFile, 'utf8'), /^\|1\|/);
      assert.ok(await machine({ knownHostsFile: hashedFile }).lifetime());
    });

    it('refuses a CHANGED host key loudly, even with acceptUnknownHostKey', async () => {
      const other = await generateKeyPair(sshd.dir, `other_${randomBytes(3).toString('hex')}`);
      const changed = join(sshd.dir, 'known_hosts.changed');
      const name = sshd.port === 22 ? sshd.host : `[${sshd.host}]:${sshd.port}`;
      writeFileSync(changed, `${name} ${other.publicLine}\n`);
      for (const acceptUnknownHostKey of [false, true]) {
        const error = await expectUnavailable(machine({ knownHostsFile: changed, acceptUnknownHostKey }).lifetime(), /REMOTE HOST IDENTIFICATION HAS CHANGED/);
        assert.match(error.message, /known_hosts\.changed:1 has ssh-ed25519 key SHA256:/);
        assert.match(error.message, /acceptUnknownHostKey does not override/);
      }
    });

    it('a failed connect leaves nothing cached: the next call tries again', async () => {
      const file = join(sshd.dir, 'known_hosts.later');
      writeFileSync(file, '');
      const m = machine({ knownHostsFile: file });
      await expectUnavailable(m.lifetime(), /host key verification failed/);
      copyFileSync(sshd.knownHostsFile, file);
      assert.ok(await m.lifetime());
    });

    it('names user@host:port and the cause for refused connections and failed authentication', async () => {
      const stranger = await generateKeyPair(sshd.dir, `stranger_${randomBytes(3).toString('hex')}`);
      await expectUnavailable(machine({ identityFile: stranger.privateFile }).lifetime(), /authentication failed for user berrytest|authentication failed/);
      const closedPort = machine({ host: '127.0.0.1', port: 1 });
      const error = await closedPort.lifetime().then(
        () => assert.fail('connected to port 1'),
        (e: Error) => e,
      );
      assert.match(error.message, /^Cannot connect to ssh:\S+@127\.0\.0\.1:1: connection refused/);
    });
  });

  describe('environment and files', () => {
    it('env() is the remote login environment, not ours', async () => {
      const m = machine();
      const env = await m.env();
      assert.equal(env[REMOTE_ENV.name], REMOTE_ENV.value);
      assert.equal(process.env[REMOTE_ENV.name], undefined);
      assert.equal(env.USER, sshd.username);
      assert.equal(env.HOME, sshd.homeDir);
      assert.equal(await m.env(), env, 'read once per lifetime');
    });

    it('homeDir() and readFile() over SFTP; a missing file is undefined; EACCES is an error with a code', async () => {
      const m = machine();
      assert.equal(await m.homeDir(), sshd.homeDir);
      const text = `héllo\nfrom ${randomBytes(4).toString('hex')}\n`;
      const file = join(sshd.dir, 'remote-file.txt');
      writeFileSync(file, text, { mode: 0o644 });
      assert.equal(await m.readFile(file), text);
      // Larger than one SFTP read (32 KB), and exactly one read long: both end at the right byte.
      for (const size of [100_000, 32 * 1024, 0]) {
        const big = 'é'.repeat(size / 2);
        const bigFile = join(sshd.dir, `remote-${size}.txt`);
        writeFileSync(bigFile, big, { mode: 0o644 });
        assert.equal(await m.readFile(bigFile), big, `${size} bytes`);
      }
      assert.equal(await m.readFile(join(sshd.dir, 'missing.txt')), undefined);
      const secret = join(sshd.dir, 'root-only.txt');
      writeFileSync(secret, 'x', { mode: 0o600 });
      await assert.rejects(m.readFile(secret), (error: Error & { code?: string }) => error.code === 'EACCES' && error.message.includes(secret));
    });
  });

  describe('file writes over SFTP (token files)', () => {
    it('mkdir with parents and mode, exclusive create, atomic rename over, unlink (a missing file is fine)', async () => {
      const m = machine();
      const dir = join(workDir, `tokens-${randomBytes(3).toString('hex')}`, 'berry', 'oauth');
      await m.mkdir(dir, 0o700);
      await m.mkdir(dir, 0o700);
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      const file = join(dir, 'record.json');
      await m.writeFile(`${file}.tmp`, 'first', { mode: 0o600, exclusive: true });
      await assert.rejects(
        m.writeFile(`${file}.tmp`, 'again', { mode: 0o600, exclusive: true }),
        (error: Error & { code?: string }) => error.code === 'EEXIST',
      );
      await m.rename(`${file}.tmp`, file);
      const big = 'x'.repeat(100_000);
      await m.writeFile(`${file}.tmp`, big, { mode: 0o600 });
      await m.rename(`${file}.tmp`, file);
      assert.equal(await m.readFile(file), big);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(file).uid, statSync(dir).uid, 'written by the remote user');
      await m.unlink(file);
      await m.unlink(file);
      assert.equal(existsSync(file), false);
      await assert.rejects(
        m.writeFile(join(dir, 'no-such-dir', 'f'), 'x', { mode: 0o600 }),
        (error: Error & { code?: string }) => typeof error.code === 'string',
      );
    });
  });

  describe('spawn', () => {
    it('runs a PATH-resolved command in cwd with spec.env added, never on a command line', async () => {
      const m = machine();
      await m.lifetime();
      const secret = `s3cret-${randomBytes(8).toString('hex')}`;
      const value = `${secret} it's "quoted" $HOME \`x\`\nline2`;
      let scans = 0;
      // Every command line that showed the secret; only the deliberate control below may.
      const leaked = new Set<string>();
      const control = `control-${secret}`;
      let scanning = true;
      const scanner = (async () => {
        while (scanning) {
          for (const row of processTable()) if (row.rawCmdline.includes(secret)) leaked.add(row.cmdline);
          scans++;
          await sleep(2);
        }
      })();
      const script = [
        'const stat = require("fs").readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");',
        `console.log(JSON.stringify({ cwd: process.cwd(), value: process.env.BERRY_SECRET, remote: process.env.${REMOTE_ENV.name}, pid: process.pid, pgid: Number(stat[2]) }));`,
        'process.stdin.resume(); process.stdin.on("end", () => process.exit(0));',
      ].join('\n');
      const p = await m.spawn({ command: 'node', args: ['-e', script], env: { BERRY_SECRET: value }, cwd: workDir });
      const line = await waitForStdout(p, /^\{/);
      await sleep(100);
      p.stdin.end();
      const exit = await p.exited;
      // Control: the scanner does see what is on a command line (args are visible, env is not).
      const controlProcess = await m.spawn({ command: 'sh', args: ['-c', 'read x', control], env: {}, cwd: '/' });
      await waitFor(() => [...leaked].some((line) => line.includes(control)), 5000, 'the scanner to see an argument');
      controlProcess.stdin.end();
      await controlProcess.exited;
      scanning = false;
      await scanner;
      const seen = JSON.parse(line) as { cwd: string; value: string; remote: string; pid: number; pgid: number };
      assert.deepEqual(exit, { code: 0, signal: undefined, error: undefined });
      assert.equal(seen.cwd, workDir);
      assert.equal(seen.value, value);
      assert.equal(seen.remote, REMOTE_ENV.value, 'inherits the remote environment');
      assert.equal(seen.pgid, seen.pid, 'the command leads its own process group');
      assert.equal(p.pid, seen.pgid);
      assert.ok(scans > 5, `only ${scans} scans of the process table`);
      const leaks = [...leaked].filter((line) => !line.includes(control));
      assert.deepEqual(leaks, [], `secret visible in a command line: ${leaks.join(' | ')}`);
    });

    it('killGroup kills the whole group, grandchildren included (TERM, then KILL for a TERM-proof group)', async () => {
      const m = machine();
      for (const [signal, trap] of [
        ['SIGTERM', ''],
        ['SIGKILL', 'trap "" TERM; '],
      ] as const) {
        const p = await m.spawn({
          command: 'sh',
          args: ['-c', `${trap}sh -c '${trap}sleep 300; echo never' & sleep 300 & echo ready; wait`],
          env: {},
          cwd: '/',
        });
        p.stderr.resume();
        await waitForStdout(p, /^ready$/);
        const pgid = p.pid!;
        await waitFor(() => processTable().filter((row) => row.pgid === pgid).length >= 4, 5000, 'the group to start');
        const group = processTable().filter((row) => row.pgid === pgid);
        assert.ok(
          group.some((row) => row.ppid !== pgid && row.pid !== pgid),
          'a grandchild exists',
        );
        p.killGroup(signal);
        const exit = await p.exited;
        assert.equal(exit.signal, signal);
        await waitFor(() => group.every((row) => !isAlive(row.pid)), 5000, `every process of group ${pgid} to die`);
      }
    });

    it('killGroup before the pid is known is sent once it is; after exit it never throws', async () => {
      const m = machine();
      const p = await m.spawn({ command: 'sleep', args: ['300'], env: {}, cwd: '/' });
      p.killGroup('SIGKILL');
      assert.equal((await p.exited).signal, 'SIGKILL');
      p.killGroup('SIGTERM');
    });

    it('exit 127 with an ENOENT error for a missing command, 126 for a missing cwd; stderr says why', async () => {
      const m = machine();
      const missing = await m.spawn({ command: 'no-such-command-berry', args: [], env: {}, cwd: '/' });
      const stderr = collect(missing.stderr);
      missing.stdout.resume();
      const exit = await missing.exited;
      assert.equal(exit.code, 127);
      assert.equal((exit.error as NodeJS.ErrnoException).code, 'ENOENT');
      await waitFor(() => stderr.text().includes('command not found: no-such-command-berry'), 2000, 'stderr');
      const noDir = await m.spawn({ command: 'node', args: [], env: {}, cwd: '/no/such/dir' });
      noDir.stdout.resume();
      const noDirStderr = collect(noDir.stderr);
      const noDirExit = await noDir.exited;
      assert.equal(noDirExit.code, 126);
      assert.match(noDirExit.error!.message, /working directory/);
      await waitFor(() => noDirStderr.text().includes('/no/such/dir'), 2000, 'stderr');
    });

    it('past sshd MaxSessions (10) a spawn fails through exited with a message naming the limit', async () => {
      const m = machine();
      const started = await Promise.all(Array.from({ length: 11 }, () => m.spawn({ command: 'sleep', args: ['300'], env: {}, cwd: '/' })));
      const refused = await Promise.race([
        Promise.any(started.map((p) => p.exited.then((exit) => (exit.error ? exit : Promise.reject(new Error('no error')))))),
        sleep(5000).then(() => undefined),
      ]);
      for (const p of started) p.killGroup('SIGKILL');
      await Promise.all(started.map((p) => p.exited));
      assert.ok(refused, 'one of 11 sessions was refused');
      assert.equal((refused.error as NodeJS.ErrnoException).code, 'ERR_SSH_CHANNEL_OPEN');
      assert.match(refused.error!.message, /MaxSessions/);
    });

    it('a 100 MB stderr flood neither blocks stdout (while drained) nor buffers without bound (while not)', async () => {
      const m = machine();
      const total = 100 * 1024 * 1024;
      const script = `
        const chunk = Buffer.alloc(64 * 1024, 120); let left = ${total};
        const pump = () => { while (left > 0) { left -= chunk.length; if (!process.stderr.write(chunk)) return process.stderr.once('drain', pump); } };
        pump();
        process.stdin.on('data', (d) => process.stdout.write(d));
        process.stdin.on('end', () => process.exit(0));`;
      const p = await m.spawn({ command: 'node', args: ['-e', script], env: {}, cwd: '/' });
      let received = 0;
      let tail = '';
      p.stderr.on('data', (chunk: Buffer) => {
        received += chunk.length;
        tail = (tail + chunk.toString('latin1')).slice(-1024);
      });
      const echoes: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        p.stdin.write(`ping ${i}\n`);
        await waitForStdout(p, new RegExp(`ping ${i}$`));
        echoes.push(performance.now() - started);
      }
      assert.ok(received < total, 'the echoes came back while the flood was still going');
      // Stop reading: the remote writer must be held back by the SSH window, not buffered here.
      p.stderr.pause();
      await sleep(300);
      const heldAt = received;
      await sleep(300);
      assert.equal(received, heldAt);
      assert.ok(p.stderr.readableLength < 8 * 1024 * 1024, `buffered ${p.stderr.readableLength} bytes`);
      p.stderr.resume();
      await waitFor(() => received === total, 30_000, 'the whole flood');
      p.stdin.end();
      assert.equal((await p.exited).code, 0);
      assert.equal(tail.length, 1024);
      assert.ok(Math.max(...echoes) < 2000, `echo latencies ${echoes.map((ms) => ms.toFixed(1)).join(', ')}`);
    });

    it('carries an MCP session: server-everything over spawn sees spec.env and the remote env', async () => {
      const m = machine();
      const token = `tok-${randomBytes(6).toString('hex')}`;
      const p = await m.spawn({ command: 'node', args: [SERVER_EVERYTHING, 'stdio'], env: { BERRY_TOKEN: token }, cwd: workDir });
      const stderr = collect(p.stderr);
      const client = new Client({ name: 'ssh-test', version: '0.0.0' });
      await client.connect(new ProcessTransport(p));
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'get-env'));
      const result = await client.callTool({ name: 'get-env', arguments: {} });
      const env = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, string>;
      assert.equal(env.BERRY_TOKEN, token);
      assert.equal(env[REMOTE_ENV.name], REMOTE_ENV.value);
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'over ssh' } });
      assert.match(JSON.stringify(echo.content), /over ssh/);
      await client.close();
      const exit = await p.exited;
      assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', `${JSON.stringify(exit)} ${stderr.text()}`);
    });
  });

  describe('dispatcher', () => {
    it('reaches a server that exists only on the remote side, by its name and by localhost', async () => {
      const m = machine();
      const { hostname, httpPort, pid } = sshd.remoteHttp;
      for (const host of new Set([hostname, 'localhost'])) {
        const response = await request(`http://${host}:${httpPort}/path?q=1`, { dispatcher: m.dispatcher() });
        const body = (await response.body.json()) as { host: string; url: string; peerAddress: string; peerPort: number; pid: number };
        assert.equal(response.statusCode, 200);
        assert.equal(body.url, '/path?q=1');
        assert.equal(body.host, `${host}:${httpPort}`);
        assert.equal(body.pid, pid);
        if (sshd.namespace) {
          assert.notEqual(netnsOf(pid), netnsOf('self'), 'the server lives in another network namespace');
        } else {
          // Loopback fallback: the server's peer must be sshd, not this process.
          const owners = tcpSocketOwners(body.peerPort, 'local');
          assert.ok(owners.length > 0 && !owners.includes(process.pid));
          assert.ok(owners.every((owner) => processTable().find((row) => row.pid === owner)?.comm === 'sshd'));
        }
      }
    });

    it('https through the tunnel, with the server name checked against the certificate', async function () {
      const { hostname, httpsPort } = sshd.remoteHttp;
      if (httpsPort === undefined) this.skip();
      const m = machine();
      const response = await request(`https://${hostname}:${httpsPort}/tls`, { dispatcher: m.dispatcher() });
      assert.equal(response.statusCode, 200);
      assert.equal(((await response.body.json()) as { url: string }).url, '/tls');
      const untrusted = machine({ tls: {} });
      await assert.rejects(request(`https://${hostname}:${httpsPort}/`, { dispatcher: untrusted.dispatcher() }), /self[- ]signed/i);
    });

    it('a refused remote port or an unknown remote name fails with a clear connect error', async () => {
      const m = machine();
      await assert.rejects(request('http://localhost:1/', { dispatcher: m.dispatcher() }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'ECONNREFUSED');
        assert.match(error.message, /could not connect to localhost:1 .*Connection refused/);
        return true;
      });
      await assert.rejects(request('http://no-such-host.invalid/', { dispatcher: m.dispatcher() }), { code: 'ENOTFOUND' });
    });
  });

  describe('connection lifetimes', () => {
    it('a dropped connection ends the lifetime (listeners hear it); the next call reconnects with a new id', async () => {
      const m = machine();
      const ended: LifetimeEndEvent[] = [];
      m.onLifetimeEnd((event) => ended.push(event));
      const first = await m.lifetime();
      const firstDispatcher = m.dispatcher();
      assert.equal(m.dispatcher(), firstDispatcher);
      assert.ok(sshd.killConnections() > 0);
      await waitFor(() => ended.length === 1, 5000, 'the lifetime-end event');
      assert.equal(ended[0]!.lifetime, first);
      const second = await m.lifetime();
      assert.notEqual(second, first);
      assert.notEqual(m.dispatcher(), firstDispatcher, 'a new dispatcher for the new lifetime');
      assert.equal((await m.env())[REMOTE_ENV.name], REMOTE_ENV.value);
      const response = await request(`http://localhost:${sshd.remoteHttp.httpPort}/`, { dispatcher: m.dispatcher() });
      assert.equal(response.statusCode, 200);
      await response.body.dump();
    });

    it('unanswered keepalives end the lifetime', async () => {
      const m = machine({ keepaliveIntervalMs: 100 });
      const ended: LifetimeEndEvent[] = [];
      m.onLifetimeEnd((event) => ended.push(event));
      const first = await m.lifetime();
      const resume = sshd.pauseConnections();
      try {
        await waitFor(() => ended.length === 1, 5000, 'the keepalive failure');
      } finally {
        resume();
      }
      assert.equal(ended[0]!.lifetime, first);
      assert.match(String(ended[0]!.error?.message), /keepalive/i);
      assert.notEqual(await m.lifetime(), first);
    });

    it('lifetime(signal) stops waiting when the signal aborts', async () => {
      const m = machine();
      await assert.rejects(m.lifetime(AbortSignal.abort()), { name: 'AbortError' });
      assert.ok(await m.lifetime(AbortSignal.timeout(10_000)));
    });

    it('a process on a dropped connection resolves exited with an error', async () => {
      const m = machine();
      const p = await m.spawn({ command: 'sleep', args: ['300'], env: {}, cwd: '/' });
      await waitFor(() => p.pid !== undefined, 5000, 'the pid');
      sshd.killConnections();
      const exit = await p.exited;
      assert.equal(exit.code, undefined);
      assert.match(exit.error!.message, /closed while sleep was running/);
      // Nothing can be sent over a dead connection: killGroup is a no-op, and the orphaned
      // remote process is ours (the test's) to clean up.
      p.killGroup('SIGKILL');
      process.kill(-p.pid!, 'SIGKILL');
    });

    it('close() is idempotent and ends the connection; later calls fail with MACHINE_UNAVAILABLE', async () => {
      const m = machine();
      const ended: LifetimeEndEvent[] = [];
      m.onLifetimeEnd((event) => ended.push(event));
      await m.lifetime();
      await Promise.all([m.close(), m.close()]);
      await m.close();
      assert.equal(ended.length, 1);
      await assert.rejects(m.lifetime(), { code: 'MACHINE_UNAVAILABLE' });
      assert.throws(() => m.dispatcher(), { code: 'MACHINE_UNAVAILABLE' });
    });
  });
});
