/**
 * Section 22's memory probe: the host's RSS per live connection with 100 stdio servers, measured in
 * a fresh Node process (this file run with --probe) so that the other sections' heap does not count.
 * Ten connections are opened first, so the baseline already holds the SDK and the connection code:
 * the delta is what each further connection costs.
 */
import { createHost } from '../src/index.js';
import { catalogServerPath } from '../test/support/paths.js';
import { childPidsOf } from '../test/support/processes.js';
import { manyServers, SERVERS } from './many-servers.js';
import { rssOf } from './memory.js';
import { probeEntry, runProbe } from './probe.js';
import { NODE, tempDir, writeConfig } from './fixtures.js';

const MB = 1024 * 1024;
/** Connections opened before the baseline: the code every connection runs is loaded and compiled by then. */
export const FIRST = 10;

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
  // Other offsets than s000…'s: an entry with the same resolved config would share its connection.
  const first: Record<string, unknown> = {};
  for (let i = 0; i < FIRST; i++) first[`first${i}`] = { command: NODE, args: [catalogServerPath, '--synthetic=12', `--offset=${(SERVERS + i) * 1000}`] };
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, { ...first, ...manyServers(SERVERS) }), warmIsolates: 0 });
  try {
    const listed = await Promise.all(Object.keys(first).map((server) => host.list({ server })));
    if (!listed.every((l) => l.servers[0]?.status === 'connected')) throw new Error('the first servers did not connect');
    await settle(gc);
    const before = process.memoryUsage();
    const all = await host.list();
    const connected = all.servers.filter((s) => s.status === 'connected').length;
    if (connected !== SERVERS + FIRST) throw new Error(`only ${connected} of ${SERVERS + FIRST} servers connected`);
    await settle(gc);
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

/** Lets freed memory go back: a few collections with pauses between them (after a single one the delta over 100 connections read −2 to +18 MB). */
async function settle(gc: () => void): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

probeEntry(import.meta.url, probe);
