/**
 * Section 12: the soak. 1,000 sequential `host.run` scripts each making one call, then 200
 * connect/close cycles (a fresh host, one call, close), in a fresh child process (this file run
 * with --probe). Afterwards: no process left, no extra file descriptor, RSS within 30 MB of the
 * start (after a warm-up, so the start counts loaded modules and JIT code).
 */
import { readdirSync } from 'node:fs';
import { createHost } from '../src/index.js';
import { childPidsOf, processAlive } from '../test/support/processes.js';
import { faultEntry, tempDir, writeConfig } from './fixtures.js';
import { value, type Row } from './rows.js';
import { probeEntry, runProbe } from './probe.js';

const SECTION = '12 soak';
const RUNS = 1000;
const CYCLES = 200;
const MB = 1024 * 1024;

interface Soak {
  readonly runs: number;
  readonly cycles: number;
  readonly failures: number;
  readonly seconds: number;
  readonly rssStart: number;
  readonly rssEnd: number;
  readonly fdsStart: number;
  readonly fdsEnd: number;
  readonly processesLeft: number;
}

export default async function soak(log: (message: string) => void = () => {}): Promise<Row[]> {
  const s = await runProbe<Soak>(import.meta.url, {
    name: 'soak probe',
    timeoutMs: 600_000,
    onStderrLine: (line) => {
      if (line.startsWith('soak:')) log(line);
    },
  });
  const rssGrowth = (s.rssEnd - s.rssStart) / MB;
  return [
    value(SECTION, `${s.runs} host.run scripts (one call each) + ${s.cycles} connect/close cycles: failures`, 'count', s.failures, {
      target: { max: 0, label: '0' },
      note: `${s.seconds.toFixed(0)} s`,
    }),
    value(SECTION, 'processes left after close', 'count', s.processesLeft, { target: { max: 0, label: '0' } }),
    value(SECTION, `file descriptors added (${s.fdsStart} → ${s.fdsEnd})`, 'count', s.fdsEnd - s.fdsStart, { target: { max: 0, label: '0' } }),
    value(SECTION, `RSS growth (${(s.rssStart / MB).toFixed(0)} → ${(s.rssEnd / MB).toFixed(0)} MB)`, 'MB', rssGrowth, {
      target: { max: 30, label: '≤ 30 MB' },
    }),
  ];
}

const openFds = (): number => readdirSync('/proc/self/fd').length;

async function settle(gc: () => void): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    gc();
  }
}

/** The child side: runs the soak and prints one JSON line. */
async function probe(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const { dir, remove } = tempDir('soak');
  const configPath = writeConfig(dir, { s: faultEntry() });
  const script = 'const r = await tools.mcp_call({ server: "s", tool: "echo", arguments: { text: "soak" } }); return r.content[0].text;';
  let failures = 0;
  const runs = async (host: ReturnType<typeof createHost>, count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const record = await host.run(script);
      if (!record.ok || record.result !== 'soak') failures++;
    }
  };
  const cycles = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      const host = createHost({ cwd: dir, configPath });
      try {
        await host.call({ server: 's', tool: 'echo', arguments: { text: 'cycle' } });
      } catch {
        failures++;
      } finally {
        await host.close();
      }
    }
  };
  const warm = createHost({ cwd: dir, configPath });
  // Warm-up: modules, JIT and the first connection are not what the soak measures.
  await runs(warm, 50);
  await warm.close();
  await cycles(5);
  await settle(gc);
  failures = 0;
  const rssStart = process.memoryUsage().rss;
  const fdsStart = openFds();
  const started = performance.now();
  const host = createHost({ cwd: dir, configPath });
  try {
    await runs(host, RUNS);
    process.stderr.write(`soak: ${RUNS} runs in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  } finally {
    await host.close();
  }
  await cycles(CYCLES);
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`soak: ${CYCLES} cycles done at ${seconds.toFixed(1)} s\n`);
  await settle(gc);
  const result: Soak = {
    runs: RUNS,
    cycles: CYCLES,
    failures,
    seconds,
    rssStart,
    rssEnd: process.memoryUsage().rss,
    fdsStart,
    fdsEnd: openFds(),
    processesLeft: childPidsOf(process.pid).filter(processAlive).length,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  remove();
}

probeEntry(import.meta.url, probe);
