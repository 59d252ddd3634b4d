/**
 * Section 14: `list` of the three example servers (everything, filesystem, memory) answered from
 * saved catalogs, against a cold `list` that starts and initializes every server. Each side is a
 * fresh host (as a one-shot `berry-mcp list` is); the saved side's catalogs were written by an
 * earlier list and are fresh.
 */
import { join } from 'node:path';
import { createHost } from '../src/index.js';
import { everythingPath, filesystemPath, memoryPath } from '../test/support/paths.js';
import { NODE, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios } from './stats.js';

const SECTION = '14 saved catalogs';
const ROUNDS = 5;

export default async function savedCatalogs(): Promise<Row[]> {
  const { dir, remove } = tempDir('catalogs');
  const configPath = writeConfig(dir, {
    everything: { command: NODE, args: [everythingPath] },
    files: { command: NODE, args: [filesystemPath, dir] },
    memory: { command: NODE, args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
  });
  const savedCatalogs = { dir: join(dir, 'catalogs') };
  const list = async (refresh: boolean, expectCached: boolean): Promise<number> => {
    const started = performance.now();
    const host = createHost({ cwd: dir, configPath, savedCatalogs });
    try {
      const result = await host.list(refresh ? { refresh } : {});
      const elapsed = performance.now() - started;
      for (const server of result.servers) {
        if (server.status !== 'connected' || (server.cached !== undefined) !== expectCached) {
          throw new Error(`unexpected status for ${server.name}: ${JSON.stringify(server).slice(0, 200)}`);
        }
      }
      return elapsed;
    } finally {
      await host.close();
    }
  };
  try {
    await list(true, false);
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        cold: () => list(true, false),
        saved: () => list(false, true),
      },
    );
    return [
      row(SECTION, 'cold list of 3 servers (spawn + init + tools/list each)', 'ms', r.cold.samples),
      row(SECTION, 'list of 3 servers from saved catalogs', 'ms', r.saved.samples),
      row(SECTION, 'saved / cold', 'x', pairedRatios(r.saved.perRound, r.cold.perRound), { target: { max: 0.2, label: '≤ 0.20× cold' } }),
    ];
  } finally {
    remove();
  }
}
