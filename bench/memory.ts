/**
 * Section 9: memory of the host process with 10 warm connections (10 distinct fault-server
 * entries) and then one running sandbox. Measured in a fresh child process (this file run with
 * --probe) so that the other sections' heap does not count.
 */
import { readFileSync } from 'node:fs';
import { createHost } from '../src/index.js';
import { childPidsOf } from '../test/support/processes.js';
import { faultEntry, tempDir, writeConfig } from './fixtures.js';
import { value, type Row } from './rows.js';
import { isProbe, runProbe } from './probe.js';

const SECTION = '9 memory';
const CONNECTIONS = 10;
const MB = 1024 * 1024;

interface Probe {
  readonly baselineRss: number;
  readonly warmRss: number;
  readonly sandboxPeakRss: number;
  readonly serversRss: number;
  readonly connected: number;
}

export default async function memory(): Promise<Row[]> {
  const probe = await runProbe<Probe>(import.meta.url, { name: 'memory probe', timeoutMs: 60_000 });
  const note = `RSS of a fresh host process (${CONNECTIONS} fault-server entries)`;
  return [
    value(SECTION, 'host RSS, modules loaded, no connection', 'MB', probe.baselineRss / MB, { note }),
    value(SECTION, `host RSS with ${CONNECTIONS} warm connections`, 'MB', probe.warmRss / MB),
    value(SECTION, `host RSS, ${CONNECTIONS} connections + one running sandbox (peak)`, 'MB', probe.sandboxPeakRss / MB),
    value(SECTION, 'per warm connection (host side)', 'MB', (probe.warmRss - probe.baselineRss) / MB / CONNECTIONS),
    value(SECTION, `the ${CONNECTIONS} server processes together`, 'MB', probe.serversRss / MB),
  ];
}


/** The child side: builds the host, measures, prints one JSON line. */
async function probe(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const { dir, remove } = tempDir('memory');
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < CONNECTIONS; i++) servers[`s${i}`] = faultEntry([`--instructions=bench server ${i}`]);
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, servers) });
  try {
    // Load the sandbox's modules before the baseline, so that it counts only connections.
    await host.run('return 1');
    gc();
    const baselineRss = process.memoryUsage().rss;
    const listed = await host.list();
    const connected = listed.servers.filter((s) => s.status === 'connected').length;
    if (connected !== CONNECTIONS) throw new Error(`only ${connected} of ${CONNECTIONS} servers connected`);
    gc();
    const warmRss = process.memoryUsage().rss;
    let sandboxPeakRss = warmRss;
    const sampler = setInterval(() => (sandboxPeakRss = Math.max(sandboxPeakRss, process.memoryUsage().rss)), 10);
    const record = await host.run(`
      const data = Array.from({ length: 1000 }, (_, i) => ({ i, text: 'x'.repeat(100) }));
      await tools.mcp_call({ server: 's0', tool: 'sleep', arguments: { ms: 500 } });
      return data.length;`);
    clearInterval(sampler);
    if (!record.ok) throw new Error(`sandbox failed: ${JSON.stringify(record.error)}`);
    const serversRss = childPidsOf(process.pid).reduce((sum, pid) => sum + rssOf(pid), 0);
    process.stdout.write(`${JSON.stringify({ baselineRss, warmRss, sandboxPeakRss, serversRss, connected })}\n`);
  } finally {
    await host.close();
    remove();
  }
}

export function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
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
