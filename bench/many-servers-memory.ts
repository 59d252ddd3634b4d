/**
 * Section 22's memory probe: the host's RSS per live connection with 100 stdio servers, measured in
 * a fresh Node process (this file run with --probe) so that the other sections' heap does not count.
 * One connection is opened first, so the baseline already holds the SDK and the connection code:
 * the delta is what each further connection costs.
 */
import { createHost } from '../src/index.js';
import { catalogServerPath } from '../test/support/paths.js';
import { childPidsOf } from '../test/support/processes.js';
import { manyServers, SERVERS } from './many-servers.js';
import { rssOf } from './memory.js';
import { isProbe, runProbe } from './probe.js';
import { NODE, tempDir, writeConfig } from './fixtures.js';

const MB = 1024 * 1024;

interface Probe {
  readonly perConnectionMb: number;
  readonly heapPerConnectionKb: number;
  readonly serversMb: number;
}

export function manyServersMemory(): Promise<Probe> {
  return runProbe<Probe>(import.meta.url, { name: 'many-servers memory probe', timeoutMs: 180_000 });
}

async function probe(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const { dir, remove } = tempDir('many-servers-memory');
  // Another offset than s000's: an entry with the same resolved config would share its connection.
  const first = { command: NODE, args: [catalogServerPath, '--synthetic=12', `--offset=${SERVERS * 1000}`] };
  const servers = { first, ...manyServers(SERVERS) };
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, servers), warmIsolates: 0 });
  try {
    const first = await host.list({ server: 'first' });
    if (first.servers[0]?.status !== 'connected') throw new Error(`first server: ${JSON.stringify(first.servers[0])}`);
    gc();
    const before = process.memoryUsage();
    const listed = await host.list();
    const connected = listed.servers.filter((s) => s.status === 'connected').length;
    if (connected !== SERVERS + 1) throw new Error(`only ${connected} of ${SERVERS + 1} servers connected`);
    gc();
    const after = process.memoryUsage();
    const serversRss = childPidsOf(process.pid).reduce((sum, pid) => sum + rssOf(pid), 0);
    const result: Probe = {
      perConnectionMb: (after.rss - before.rss) / MB / SERVERS,
      heapPerConnectionKb: (after.heapUsed - before.heapUsed) / 1024 / SERVERS,
      serversMb: serversRss / MB,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await host.close();
    remove();
  }
}

if (isProbe(import.meta.url)) {
  probe().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
