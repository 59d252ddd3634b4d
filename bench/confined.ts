/**
 * Section 15: the start-up cost of confinement. The first `host.list({ server })` (spawn +
 * initialize + tools/list) of server-everything by a fresh host, unconfined vs `sandbox: {mode:
 * "on"}`: once on a fresh machine (the bubblewrap probe included, as in a CLI one-shot), once on a
 * machine that already probed (a second server of a long-lived host). A confined server sees a
 * smaller environment (here without the machine-wide NODE_EXTRA_CA_CERTS, which Node reads at
 * start), so the wrapper's own cost is measured apart: `node -e 0` through bwrap vs directly, with
 * the same environment.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { createHost, type LocalMachine } from '../src/index.js';
import { confineSpawnSpec, type SpawnSpec } from '../src/remote/machine/index.js';
import { everythingEntry, NODE, tempDir, writeConfig } from './fixtures.js';
import { ScratchHomeMachine } from '../test/sandbox/helpers.js';
import { missing, row, type Row } from './rows.js';
import { alternate, pairedRatios } from './stats.js';

const SECTION = '15 confined start';
const ROUNDS = 9;

export default async function confinedStart(): Promise<Row[]> {
  if (spawnSync('bwrap', ['--version'], { stdio: 'ignore' }).status !== 0) {
    return [missing(SECTION, 'confined start', 'skipped: bubblewrap (bwrap) is not installed')];
  }
  const { dir, remove } = tempDir('confined');
  // As root a confined server is uid 65534, and the workspace (this directory) must let it in.
  chmodSync(dir, 0o755);
  const configPath = writeConfig(dir, {
    plain: everythingEntry(),
    confined: { ...everythingEntry(), sandbox: { mode: 'on' } },
  });
  const home = join(dir, 'home');
  const probed = new ScratchHomeMachine(home);
  const first = async (server: string, machine: LocalMachine = new ScratchHomeMachine(home)): Promise<number> => {
    const started = performance.now();
    const host = createHost({ cwd: dir, configPath, machine });
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
    const policy = { mode: 'on', network: true, workspace: 'ro', binds: [], envPass: [], home: join(home, 'private') } as const;
    const wrapped = await confineSpawnSpec(probed, 'bench', { command: NODE, args: ['-e', '0'], env: {}, cwd: dir }, policy);
    const direct: SpawnSpec = { ...wrapped, command: NODE, args: ['-e', '0'], pins: [] };
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        plain: () => first('plain'),
        confined: () => first('confined'),
        confinedProbed: () => first('confined', probed),
      },
    );
    // Apart from the hosts: a server still exiting after a close must not slow these.
    const n = await alternate(
      { rounds: ROUNDS * 2, warmupRounds: 1 },
      {
        nodeDirect: () => timeExit(probed, direct),
        nodeWrapped: () => timeExit(probed, wrapped),
      },
    );
    return [
      row(SECTION, 'unconfined: first list of server-everything (spawn + init + list)', 'ms', r.plain.samples),
      row(SECTION, 'confined, fresh machine (bwrap probe included)', 'ms', r.confined.samples),
      row(SECTION, 'confined, machine already probed', 'ms', r.confinedProbed.samples),
      row(SECTION, 'confined (fresh machine) / unconfined', 'x', pairedRatios(r.confined.perRound, r.plain.perRound)),
      row(SECTION, 'confined (probed machine) / unconfined', 'x', pairedRatios(r.confinedProbed.perRound, r.plain.perRound)),
      row(SECTION, 'node -e 0, the confined environment, directly', 'ms', n.nodeDirect.samples),
      row(SECTION, 'node -e 0 through bwrap', 'ms', n.nodeWrapped.samples),
      row(SECTION, 'node -e 0 through bwrap / directly (the wrapper alone)', 'x', pairedRatios(n.nodeWrapped.perRound, n.nodeDirect.perRound)),
    ];
  } finally {
    await probed.close();
    remove();
  }
}

/** Spawn to exit of `spec` (its environment exactly; its pinned mounts opened as a start opens them). */
async function timeExit(machine: LocalMachine, spec: SpawnSpec): Promise<number> {
  const started = performance.now();
  const child = await machine.spawn(spec);
  child.stdin.end();
  child.stdout.resume();
  child.stderr.resume();
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`${spec.command} exited with ${exit.code ?? exit.signal ?? exit.error?.message}`);
  return performance.now() - started;
}
