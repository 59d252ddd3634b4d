/**
 * Section 18: `mcp_search` over 5,000 tools (10 catalog-server fixtures × 500 synthetic tools).
 * Warm: a long-lived host whose index is built, over live catalogs (the target: ≤ 2 ms
 * p50), and over saved catalogs (no server started); beside it a warm `list` of the same 5,000
 * tools, what a script reads without search. Cold: a fresh host answering its first search from
 * the saved catalogs, which reads them and builds the index (a one-shot `berry-mcp search`).
 */
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { CatalogStore } from '../src/bindings/catalog/catalog-store.js';
import { FileStore } from '../src/store/index.js';
import { ToolIndex } from '../src/bindings/operations/search/tool-index.js';
import { noRedaction } from '../src/config/index.js';
import { createHost, type Host } from '../src/index.js';
import { LocalMachine } from '../src/remote/machine/local-machine.js';
import { catalogServerPath } from '../test/support/paths.js';
import { MODEL_QUERIES } from '../test/support/search-queries.js';
import { NODE, settled, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios } from './stats.js';

const SECTION = '18 search';
const SERVERS = 10;
const PER_SERVER = 500;
const ROUNDS = 7;

async function timed(host: Host, query: string): Promise<number> {
  const started = performance.now();
  const { tools } = await host.search({ query });
  const ms = performance.now() - started;
  if (tools.length === 0) throw new Error(`no tool found for "${query}"`);
  return ms;
}

async function searches(host: Host): Promise<number[]> {
  const samples: number[] = [];
  for (const query of MODEL_QUERIES) samples.push(await timed(host, query));
  return samples;
}

export default async function search(log: (message: string) => void): Promise<Row[]> {
  const { dir, remove } = tempDir('search');
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < SERVERS; i++) {
    servers[`s${i}`] = { command: NODE, args: [catalogServerPath, `--synthetic=${PER_SERVER}`, `--offset=${i * PER_SERVER}`] };
  }
  const configPath = writeConfig(dir, servers);
  const savedCatalogs = { dir: join(dir, 'catalogs') };
  const live = createHost({ cwd: dir, configPath, savedCatalogs });
  const hosts: Host[] = [live];
  try {
    await settled(configPath);
    // Starts the servers and saves their catalogs; the index is built by the first search.
    const listed = await live.list({});
    const count = listed.servers.reduce((n, s) => n + (s.status === 'connected' ? s.tools.length : 0), 0);
    if (count !== SERVERS * PER_SERVER) throw new Error(`listed ${count} tools, not ${SERVERS * PER_SERVER}`);
    const build = await timed(live, MODEL_QUERIES[0]!);
    log(`first search on the live host (builds the index): ${build.toFixed(1)} ms`);
    // A host on the saved catalogs only: its servers are never started.
    const saved = createHost({ cwd: dir, configPath, savedCatalogs });
    hosts.push(saved);
    await timed(saved, MODEL_QUERIES[0]!);
    const list = async (): Promise<number> => {
      const started = performance.now();
      await live.list({});
      return performance.now() - started;
    };
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        live: () => searches(live),
        saved: () => searches(saved),
        list: async () => [await list(), await list()],
      },
    );
    // The index alone, from the same 10 catalogs in memory: what a first search spends beyond reading them.
    const config = await live.readConfig();
    const store = new CatalogStore(new FileStore(new LocalMachine(), { catalogDir: savedCatalogs.dir }));
    const catalogs: [string, Tool[]][] = [];
    for (const slot of config.servers) {
      const saved = slot.status === 'ok' ? await store.load(slot.config.fingerprint) : undefined;
      if (!saved) throw new Error(`no saved catalog for ${slot.name}`);
      catalogs.push([slot.name, saved.tools]);
    }
    const builds: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const index = new ToolIndex();
      for (const [name, tools] of catalogs) index.sync(name, tools, noRedaction, undefined);
      builds.push(performance.now() - started);
    }
    const cold: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const fresh = createHost({ cwd: dir, configPath, savedCatalogs });
      try {
        cold.push(await timed(fresh, MODEL_QUERIES[round % MODEL_QUERIES.length]!));
      } finally {
        await fresh.close();
      }
    }
    return [
      row(SECTION, 'warm search, 5,000 tools on 10 live servers', 'ms', r.live.samples, { target: { max: 2, label: '≤ 2 ms p50' } }),
      row(SECTION, 'warm search, 5,000 tools from saved catalogs', 'ms', r.saved.samples, { target: { max: 2, label: '≤ 2 ms p50' } }),
      row(SECTION, 'warm list of the same 5,000 tools', 'ms', r.list.samples),
      row(SECTION, 'warm search / warm list', 'x', pairedRatios(r.live.perRoundMedian, r.list.perRoundMedian)),
      row(SECTION, 'first search of a fresh host from saved catalogs (reads 10 catalogs, builds the index)', 'ms', cold),
      row(SECTION, 'first search of the live host (builds the index from 10 live catalogs)', 'ms', [build]),
      row(SECTION, 'building the index of 5,000 tools alone (10 catalogs in memory)', 'ms', builds),
    ];
  } finally {
    await Promise.all(hosts.map((host) => host.close()));
    remove();
  }
}
