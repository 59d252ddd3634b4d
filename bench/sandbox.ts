/**
 * Section 1: a fresh sandbox, from the call to its first statement. A trivial script (`return 1`)
 * through host.run and through runScript directly, next to the floors isolated-vm itself sets: a
 * new Isolate + Context, disposed; and the same plus one asynchronous script run (what any script
 * that may await costs: a hop to the isolate's thread and back). Then host.run from the warm
 * isolate pool (the default host): each sample waits, untimed, until the pool has refilled.
 */
import type IsolatedVm from 'isolated-vm';
import { createHost } from '../src/index.js';
import { runScript } from '../src/runtime/index.js';
import { loadIsolatedVm } from '../src/runtime/load-ivm.js';
import { tempDir, writeConfig } from './fixtures.js';
import { row, value, type Row } from './rows.js';
import { alternate, pairedRatios, timeEach, timeOnce } from './stats.js';

const SECTION = '1 sandbox start';
const ROUNDS = 10;
const PER_ROUND = 20;
const TRIVIAL = 'return 1';
/** Longer than one refill (an isolate + context, ≈ 1–4 ms here). */
const REFILL_PAUSE_MS = 15;

export default async function sandboxStart(): Promise<Row[]> {
  const { dir, remove } = tempDir('sandbox');
  const configPath = writeConfig(dir, {});
  const host = createHost({ cwd: dir, configPath, warmIsolates: 0 });
  const warmHost = createHost({ cwd: dir, configPath });
  const ivm: typeof IsolatedVm = await loadIsolatedVm();
  try {
    // The first run of a process also loads isolated-vm and makes the bootstrap's code cache.
    const first = await timeOnce(() => expectOk(host.run(TRIVIAL)));
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        hostRun: () => timeEach(PER_ROUND, () => expectOk(host.run(TRIVIAL))),
        runScript: () => timeEach(PER_ROUND, () => expectOk(runScript(TRIVIAL, { functions: {} }))),
        floor: () => timeEach(PER_ROUND, async () => isolateFloor(ivm)),
        asyncFloor: () => timeEach(PER_ROUND, () => asyncRunFloor(ivm)),
        warm: () => timeWarm(() => expectOk(warmHost.run(TRIVIAL))),
      },
    );
    return [
      row(SECTION, 'host.run("return 1"), fresh isolate', 'ms', r.hostRun.samples, { target: { max: 5, label: '≤ 5 ms p50' } }),
      row(SECTION, 'runScript("return 1") directly', 'ms', r.runScript.samples),
      row(SECTION, '(floor) ivm new Isolate + Context + dispose', 'ms', r.floor.samples),
      row(SECTION, '(floor) the same + one async script run', 'ms', r.asyncFloor.samples),
      row(SECTION, 'host.run("return 1") / Isolate + Context floor', 'x', pairedRatios(r.hostRun.perRoundMedian, r.floor.perRoundMedian), {
        target: { max: 1.5, label: '≤ 1.5×' },
        note: 'the rest: the async run hop (see the second floor), the bootstrap (globals, tools, limits) and compiling the script',
      }),
      value(SECTION, 'first host.run of the process (loads ivm)', 'ms', first),
      row(SECTION, 'host.run("return 1") from the warm isolate pool', 'ms', r.warm.samples, {
        target: { max: 1, label: '≤ 1 ms p50' },
        note: 'an isolate + context made ahead, used once; sampled after the pool refilled',
      }),
      row(SECTION, 'warm host.run / fresh host.run', 'x', pairedRatios(r.warm.perRoundMedian, r.hostRun.perRoundMedian)),
    ];
  } finally {
    await Promise.all([host.close(), warmHost.close()]);
    remove();
  }
}

/** PER_ROUND runs, each after a pause (untimed) in which the pool refills: what a run finds when runs are not back to back. */
async function timeWarm(action: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < PER_ROUND; i++) {
    await new Promise((resolve) => setTimeout(resolve, REFILL_PAUSE_MS));
    samples.push(await timeOnce(action));
  }
  return samples;
}

function isolateFloor(ivm: typeof IsolatedVm): void {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  isolate.createContextSync();
  isolate.dispose();
}

async function asyncRunFloor(ivm: typeof IsolatedVm): Promise<void> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = isolate.createContextSync();
  await isolate.compileScriptSync('(async () => 1)()').run(context, { promise: true });
  isolate.dispose();
}

async function expectOk(record: Promise<{ ok: boolean; error?: { message: string } }>): Promise<void> {
  const r = await record;
  if (!r.ok) throw new Error(`script failed: ${r.error?.message}`);
}
