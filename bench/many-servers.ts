/**
 * Section 22: many servers (issue 35). 100 stdio servers in one mcp.json, each the catalog-server
 * fixture with 12 synthetic tools (1,200 tools; the reference servers have 9–14 each). A light SDK
 * server rather than 100 server-everything: both sides start the same processes, so a lighter
 * one leaves more of each side's time to the client, and a round costs 16 s instead of 30 s.
 *
 * - cold `list` by a fresh host against the raw SDK starting the same 100 servers and listing
 *   their tools, all under one Promise.all, with the same environment; a third side with the
 *   SDK's reduced default environment shows what the environment alone costs the servers;
 * - `berry-mcp list` from a new CLI process answering from saved catalogs, in the same rounds;
 * - warm `list`, the per-operation config reread and a warm call on a long-lived host;
 * - the host's memory per live connection, in a fresh child process.
 *
 * The raw servers start under setsid(1): the host starts each server in a session of its own (its
 * process group is what it kills), and with the kernel's autogroup scheduling a session is a
 * scheduling group; a loaded machine would give the host's 100 groups more CPU than the raw
 * side's one group of 100 and the ratio would measure the scheduler, not the client.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHost } from '../src/index.js';
import { catalogServerPath, PROJECT_ROOT } from '../test/support/paths.js';
import { NODE, rawStdio, settled, tempDir, writeConfig } from './fixtures.js';
import { FIRST, manyServersMemory } from './many-servers-memory.js';
import { row, value, type Row } from './rows.js';
import { timeProcess } from './startup.js';
import { alternate, pairedRatios, timeEach } from './stats.js';

const SECTION = '22 many servers';
export const SERVERS = 100;
export const TOOLS_EACH = 12;
const ROUNDS = 3;
const WARM_LISTS = 20;
const CALLS = 1000;
const BIN = join(PROJECT_ROOT, 'bin', 'berry-mcp');
const SETSID = '/usr/bin/setsid';

/** `count` catalog-server entries, s000…, each with TOOLS_EACH tools of its own. */
export function manyServers(count: number, prefix = 's'): Record<string, { command: string; args: string[] }> {
  const servers: Record<string, { command: string; args: string[] }> = {};
  for (let i = 0; i < count; i++) {
    servers[`${prefix}${String(i).padStart(3, '0')}`] = { command: NODE, args: [catalogServerPath, `--synthetic=${TOOLS_EACH}`, `--offset=${i * TOOLS_EACH}`] };
  }
  return servers;
}

/** The raw SDK: spawn + connect + listTools for every entry under one Promise.all; closes them after. */
async function rawColdList(entries: readonly { command: string; args: string[] }[], env: Record<string, string> | undefined): Promise<number> {
  const started = performance.now();
  const clients = await Promise.all(
    entries.map(async ({ command, args }) => {
      const own = existsSync(SETSID) ? { command: SETSID, args: [command, ...args] } : { command, args };
      const transport = new StdioClientTransport({ ...own, stderr: 'pipe', ...(env ? { env } : {}) });
      (transport.stderr as NodeJS.ReadableStream | null)?.resume();
      const client = new Client({ name: 'bench-raw', version: '0' });
      await client.connect(transport);
      const { tools } = await client.listTools();
      if (tools.length !== TOOLS_EACH) throw new Error(`raw listTools gave ${tools.length} tools`);
      return client;
    }),
  );
  const elapsed = performance.now() - started;
  await Promise.all(clients.map((client) => client.close()));
  return elapsed;
}

/** A fresh host (no saved catalogs): list every server; closes it after. */
async function hostColdList(cwd: string, configPath: string, count: number): Promise<number> {
  const started = performance.now();
  const host = createHost({ cwd, configPath, warmIsolates: 0 });
  try {
    const { servers } = await host.list({});
    const elapsed = performance.now() - started;
    const connected = servers.filter((s) => s.status === 'connected' && s.tools.length === TOOLS_EACH).length;
    if (connected !== count) throw new Error(`host listed ${connected} of ${count} servers: ${JSON.stringify(servers.find((s) => s.status !== 'connected'))}`);
    return elapsed;
  } finally {
    await host.close();
  }
}

/** `berry-mcp list --json` in a new process, answering from the saved catalogs under `cacheHome`. */
function cliSavedList(cwd: string, configPath: string, cacheHome: string, count: number): () => Promise<number> {
  const allCached = (stdout: string): void => {
    const { servers } = JSON.parse(stdout) as { servers: { status: string; cached?: unknown }[] };
    const cached = servers.filter((s) => s.status === 'connected' && s.cached !== undefined).length;
    if (cached !== count) throw new Error(`berry-mcp list answered ${cached} of ${count} servers from saved catalogs`);
  };
  return timeProcess(BIN, ['list', '--json', '--config', configPath], allCached, { cwd, env: { ...process.env, XDG_CACHE_HOME: cacheHome } });
}

export default async function manyServersSection(log: (message: string) => void): Promise<Row[]> {
  const { dir, remove } = tempDir('many-servers');
  const servers = manyServers(SERVERS);
  const entries = Object.values(servers);
  const configPath = writeConfig(dir, servers);
  const cacheHome = join(dir, 'cache');
  const fullEnv = process.env as Record<string, string>;
  try {
    // A long-lived host: its first list saves the catalogs the CLI side answers from.
    const warm = await warmHost(dir, configPath, join(cacheHome, 'berry', 'catalogs'), log);
    log(`memory probe (a fresh process, ${SERVERS} servers) …`);
    const memory = await manyServersMemory();
    // Warm-up on 10 servers (modules loaded, JIT), not counted.
    const ten = manyServers(10, 'w');
    await rawColdList(Object.values(ten), fullEnv);
    await hostColdList(dir, writeConfig(join(dir, 'ten'), ten), 10);
    const cli = cliSavedList(dir, configPath, cacheHome, SERVERS);
    await cli();
    log(`cold rounds: ${ROUNDS} × (raw, raw with the SDK's default env, fresh host, CLI from saved catalogs) …`);
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 0 },
      {
        raw: () => rawColdList(entries, fullEnv),
        rawDefaultEnv: () => rawColdList(entries, undefined),
        host: () => hostColdList(dir, configPath, SERVERS),
        cli,
      },
    );
    const note = `${SERVERS} catalog-server processes, ${SERVERS * TOOLS_EACH} tools`;
    return [
      row(SECTION, `raw SDK: ${SERVERS} × (spawn + connect + listTools) under Promise.all, same env as the host`, 'ms', r.raw.samples, { note }),
      row(SECTION, 'raw SDK, its default (reduced) environment', 'ms', r.rawDefaultEnv.samples),
      row(SECTION, `cold list of ${SERVERS} servers, fresh host`, 'ms', r.host.samples),
      row(SECTION, 'cold list / raw SDK (same env)', 'x', pairedRatios(r.host.perRound, r.raw.perRound), { target: { max: 1.2, label: '≤ 1.2× raw' } }),
      row(SECTION, 'cold list / raw SDK (its default env)', 'x', pairedRatios(r.host.perRound, r.rawDefaultEnv.perRound)),
      row(SECTION, `berry-mcp list of ${SERVERS} servers, new CLI process, saved catalogs`, 'ms', r.cli.samples),
      row(
        SECTION,
        'CLI list from saved catalogs / cold list',
        '%',
        pairedRatios(r.cli.perRound, r.host.perRound).map((x) => x * 100),
        {
          target: { max: 5, label: '≤ 5 % of cold' },
        },
      ),
      ...warm,
      value(SECTION, 'host RSS per live connection', 'MB', memory.perConnectionMb, {
        note: `RSS delta over ${SERVERS} connections, fresh process; V8 heap ${memory.heapPerConnectionKb.toFixed(0)} KB each`,
      }),
      value(SECTION, `the ${SERVERS + FIRST} server processes of the probe together`, 'MB', memory.serversMb),
    ];
  } finally {
    remove();
  }
}

/** Warm list, config reread and warm call on a long-lived host with SERVERS connections (closed after). */
async function warmHost(dir: string, configPath: string, catalogsDir: string, log: (message: string) => void): Promise<Row[]> {
  const host = createHost({ cwd: dir, configPath, savedCatalogs: { dir: catalogsDir }, warmIsolates: 0 });
  const one = Object.values(manyServers(1))[0]!;
  const raw = await rawStdio(one.command, one.args);
  try {
    const started = performance.now();
    await host.list({});
    log(`long-lived host: first list of ${SERVERS} servers in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await settled(configPath);
    const call = { server: 's000', tool: 'billing_create_invoice', arguments: { id: 'bench' } };
    const r = await alternate(
      { rounds: 5, warmupRounds: 1 },
      {
        list: () => timeEach(WARM_LISTS, () => host.list({})),
        reread: () => timeEach(CALLS, () => host.readConfig()),
        call: () => timeEach(CALLS, () => host.call(call)),
        raw: () => timeEach(CALLS, () => raw.client.callTool({ name: call.tool, arguments: call.arguments })),
      },
    );
    return [
      row(SECTION, `warm list of ${SERVERS} servers (${SERVERS * TOOLS_EACH} tools)`, 'ms', r.list.samples, { target: { max: 10, label: '≤ 10 ms' } }),
      row(SECTION, `per-operation reread, ${SERVERS}-server mcp.json`, 'ms', r.reread.samples, { note: 'host.readConfig()' }),
      row(SECTION, `warm host.call on a ${SERVERS}-server host`, 'ms', r.call.samples),
      row(SECTION, 'raw SDK callTool on the same fixture', 'ms', r.raw.samples),
      row(
        SECTION,
        'reread / warm host.call',
        '%',
        pairedRatios(r.reread.perRoundMedian, r.call.perRoundMedian).map((x) => x * 100),
        {
          target: { max: 10, label: '≤ 10 %' },
          note: 'per round: median reread over median call',
        },
      ),
      row(
        SECTION,
        'reread / warm raw call',
        '%',
        pairedRatios(r.reread.perRoundMedian, r.raw.perRoundMedian).map((x) => x * 100),
      ),
    ];
  } finally {
    await Promise.all([host.close(), raw.close()]);
  }
}
