/**
 * Section 15: the start-up cost of confinement. The first `host.list({ server })` (spawn +
 * initialize + tools/list) of server-everything by a fresh host, unconfined vs `sandbox: {mode:
 * "on"}`: once on a fresh machine (the bubblewrap probe included, as in a CLI one-shot), once on a
 * machine that already probed (a second server of a long-lived host).
 */
import { spawnSync } from 'node:child_process';
import { createHost, LocalMachine } from '../src/index.js';
import { everythingEntry, tempDir, writeConfig } from './fixtures.js';
import { missing, row, type Row } from './rows.js';
import { alternate, pairedRatios } from './stats.js';

const SECTION = '15 confined start';
const ROUNDS = 9;

export default async function confinedStart(): Promise<Row[]> {
  if (spawnSync('bwrap', ['--version'], { stdio: 'ignore' }).status !== 0) {
    return [missing(SECTION, 'confined start', 'skipped: bubblewrap (bwrap) is not installed')];
  }
  const { dir, remove } = tempDir('confined');
  const configPath = writeConfig(dir, {
    plain: everythingEntry(),
    confined: { ...everythingEntry(), sandbox: { mode: 'on' } },
  });
  const probed = new LocalMachine();
  const first = async (server: string, machine?: LocalMachine): Promise<number> => {
    const started = performance.now();
    const host = createHost({ cwd: dir, configPath, ...(machine ? { machine } : {}) });
    try {
      const listed = await host.list({ server });
      const elapsed = performance.now() - started;
      if (listed.servers[0]?.status !== 'connected') throw new Error(`${server} did not connect: ${JSON.stringify(listed.servers[0])}`);
      return elapsed;
    } finally {
      await host.close();
    }
  };
  try {
    const r = await alternate({ rounds: ROUNDS, warmupRounds: 1 }, {
      plain: () => first('plain'),
      confined: () => first('confined'),
      confinedProbed: () => first('confined', probed),
    });
    return [
      row(SECTION, 'unconfined: first list of server-everything (spawn + init + list)', 'ms', r.plain.samples),
      row(SECTION, 'confined, fresh machine (bwrap probe included)', 'ms', r.confined.samples),
      row(SECTION, 'confined, machine already probed', 'ms', r.confinedProbed.samples),
      row(SECTION, 'confined (fresh machine) / unconfined', 'x', pairedRatios(r.confined.perRound, r.plain.perRound)),
      row(SECTION, 'confined (probed machine) / unconfined', 'x', pairedRatios(r.confinedProbed.perRound, r.plain.perRound)),
    ];
  } finally {
    await probed.close();
    remove();
  }
}
