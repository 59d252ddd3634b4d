/**
 * Latency of the SSH machine on loopback, against the harness's sshd:
 *   node dist/test/ssh/measure.js [--netns]
 * Prints medians (ms). Not a test: numbers for the report and the README.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Agent, request } from 'undici';
import { SshMachine } from '../../src/remote/ssh-machine.js';
import { ProcessTransport } from './process-transport.js';
import { SERVER_EVERYTHING, startSshd } from './sshd.js';

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function time(times: number, action: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await action();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

const sshd = await startSshd({ namespace: process.argv.includes('--netns') });
try {
  const options = {
    host: sshd.host,
    port: sshd.port,
    username: sshd.username,
    identityFile: sshd.identityFile,
    knownHostsFile: sshd.knownHostsFile,
    agent: false as const,
  };
  const results: Record<string, number> = {};
  results['connect (TCP + handshake + auth), new machine'] = await time(10, async () => {
    const m = new SshMachine(options);
    await m.lifetime();
    await m.close();
  });

  const m = new SshMachine(options);
  await m.lifetime();
  {
    const samples: number[] = [];
    for (let i = 0; i < 10; i++) {
      const fresh = new SshMachine(options);
      await fresh.lifetime();
      const started = performance.now();
      await fresh.env();
      samples.push(performance.now() - started);
      await fresh.close();
    }
    results['env() on a fresh lifetime (exec env -0)'] = median(samples);
  }
  results['spawn `true` → exited (exec + launcher)'] = await time(20, async () => {
    const p = await m.spawn({ command: 'true', args: [], env: { A: 'b' }, cwd: '/' });
    p.stdout.resume();
    p.stderr.resume();
    await p.exited;
  });
  const echo = await m.spawn({ command: 'cat', args: [], env: {}, cwd: '/' });
  echo.stderr.resume();
  results['stdin → stdout round trip on a running process'] = await time(50, async () => {
    const back = new Promise((resolve) => echo.stdout.once('data', resolve));
    echo.stdin.write('x\n');
    await back;
  });
  echo.stdin.end();
  await echo.exited;
  results['readFile over SFTP (small file)'] = await time(20, () => m.readFile('/etc/hostname'));

  const url = `http://localhost:${sshd.remoteHttp.httpPort}/`;
  const warm = m.dispatcher();
  await (await request(url, { dispatcher: warm })).body.dump();
  results['forwarded HTTP GET, kept-alive channel'] = await time(50, async () => {
    await (await request(url, { dispatcher: warm })).body.dump();
  });
  results['forwarded HTTP GET, new channel each time'] = await time(20, async () => {
    await (await request(url, { dispatcher: warm, headers: { connection: 'close' } })).body.dump();
  });
  const local = new Agent();
  results['(baseline) direct local HTTP GET, kept-alive'] = sshd.namespace
    ? NaN
    : await time(50, async () => {
        await (await request(url, { dispatcher: local })).body.dump();
      });
  await local.close();

  results['server-everything: spawn + initialize + listTools over SSH'] = await time(5, async () => {
    const p = await m.spawn({ command: 'node', args: [SERVER_EVERYTHING, 'stdio'], env: {}, cwd: '/' });
    p.stderr.resume();
    const client = new McpClient({ name: 'measure', version: '0' });
    await client.connect(new ProcessTransport(p));
    await client.listTools();
    await client.close();
    await p.exited;
  });
  await m.close();

  console.log(`sshd on ${sshd.host}:${sshd.port} (${sshd.namespace ? 'network namespace via veth' : 'loopback'}), medians in ms:`);
  for (const [name, value] of Object.entries(results)) {
    if (!Number.isNaN(value)) console.log(`  ${value.toFixed(2).padStart(8)}  ${name}`);
  }
} finally {
  await sshd.stop();
}
