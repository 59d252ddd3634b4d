/**
 * Section 9: memory of the host process with 10 warm connections (10 distinct fault-server
 * entries) and then one running sandbox; then what the warm isolate pool holds per waiting sandbox
 * (RSS of a pool of 8, and the V8 heap of one). Measured in a fresh child process (this file run
 * with --probe) so that the other sections' heap does not count.
 */
import { readFileSync } from 'node:fs';
import { createHost } from '../src/index.js';
import { IsolatePool, runScript } from '../src/runtime/index.js';
import { loadIsolatedVm } from '../src/runtime/load-ivm.js';
import { installSandbox } from '../src/runtime/sandbox.js';
import { createIsolate } from '../src/runtime/warm-pool.js';
import { childPidsOf } from '../test/support/processes.js';
import { faultEntry, tempDir, writeConfig } from './fixtures.js';
import { value, type Row } from './rows.js';
import { probeEntry, runProbe } from './probe.js';

const SECTION = '9 memory';
const CONNECTIONS = 10;
const MB = 1024 * 1024;
const POOLED = 8;

interface Probe {
  readonly baselineRss: number;
  readonly warmRss: number;
  readonly sandboxPeakRss: number;
  readonly serversRss: number;
  readonly connected: number;
  readonly poolRss: number;
  readonly pooledHeap: number;
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
    value(SECTION, 'warm isolate pool: RSS per waiting sandbox', 'MB', probe.poolRss / MB / POOLED, {
      note: `host RSS with a pool of ${POOLED} filled, minus before, over ${POOLED}`,
    }),
    value(SECTION, 'warm isolate pool: V8 heap of one waiting sandbox', 'MB', probe.pooledHeap / MB, {
      note: 'used heap + external memory of an isolate with its context set up',
    }),
  ];
}

/** The child side: builds the host, measures, prints one JSON line. */
async function probe(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const { dir, remove } = tempDir('memory');
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < CONNECTIONS; i++) servers[`s${i}`] = faultEntry([`--instructions=bench server ${i}`]);
  // No warm pool here: its sandboxes are measured on their own below.
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, servers), warmIsolates: 0 });
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
    const { poolRss, pooledHeap } = await poolMemory(gc);
    process.stdout.write(`${JSON.stringify({ baselineRss, warmRss, sandboxPeakRss, serversRss, connected, poolRss, pooledHeap })}\n`);
  } finally {
    await host.close();
    remove();
  }
}

/** RSS a filled pool of POOLED adds, and the heap of one sandbox made as the pool makes them. */
async function poolMemory(gc: () => void): Promise<{ poolRss: number; pooledHeap: number }> {
  const pool = new IsolatePool(POOLED);
  try {
    gc();
    const before = process.memoryUsage().rss;
    await runScript('return 1', { functions: {} }, pool);
    const deadline = Date.now() + 30_000;
    while (pool.idle < POOLED && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
    const poolRss = process.memoryUsage().rss - before;
    const ivm = await loadIsolatedVm();
    const { isolate, target } = createIsolate(ivm, 128);
    const config = {
      names: ['mcp_call'],
      remaining: 1_048_576,
      resultLimit: 1_048_576,
      argumentLimit: 4_194_304,
      argumentCode: 'X',
      maxCalls: 64,
      fillLimit: 16_777_216,
      flatLimit: 134_217_728,
    };
    installSandbox(ivm, isolate, target, config);
    const heap = await isolate.getHeapStatistics();
    isolate.dispose();
    return { poolRss, pooledHeap: heap.used_heap_size + heap.externally_allocated_size };
  } finally {
    pool.close();
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

probeEntry(import.meta.url, probe);
