/**
 * Section 23: many tools (issue 35). One server with 5,000 tools (the catalog-server fixture,
 * `--synthetic=5000`) among 100 configured servers (99 more with 12 tools each, section 22's).
 * On a long-lived host, in alternating rounds: the raw SDK's tools/list of the same 5,000 tools
 * (its own process), `list` and `describe` of the server, `mcp_search` over all 100 servers and
 * over the big one alone, and serve's `run` description built for the 100 servers (what serve
 * computes for every tools/list). The first list, describe and search of the fresh host beside them.
 */
import { join } from 'node:path';
import { createHost, type Host } from '../src/index.js';
import { describeRun, DESCRIPTION_MAX } from '../src/serve/description/description.js';
import { SERVE_OUTPUT_LIMIT_BYTES } from '../src/serve/output-budget.js';
import { catalogServerPath } from '../test/support/paths.js';
import { manyServers } from './many-servers.js';
import { NODE, rawStdio, settled, tempDir, writeConfig } from './fixtures.js';
import { row, value, type Row } from './rows.js';
import { alternate, pairedRatios, timeEach, timeOnce } from './stats.js';

const SECTION = '23 many tools';
const TOOLS = 5000;
const ROUNDS = 7;
const EACH = 3;
/** Queries a model writes (bench/search.ts's kind): a few words, one naming a tool outright. */
const QUERIES = ['create invoice', 'delete customer billing', 'sync repository branch', 'approve payment', 'crm_update_contact', 'count alerts monitoring'];
/** serve's defaults (src/serve/server.ts). */
const LIMITS = { defaultTimeoutSeconds: 300, maxTimeoutSeconds: 300, memoryLimitMb: 128, outputLimitBytes: SERVE_OUTPUT_LIMIT_BYTES };

async function searches(host: Host, server?: string): Promise<number[]> {
  const samples: number[] = [];
  for (const query of QUERIES) {
    const started = performance.now();
    const { tools } = await host.search({ query, ...(server ? { server } : {}) });
    samples.push(performance.now() - started);
    if (tools.length === 0) throw new Error(`no tool found for "${query}"`);
  }
  return samples;
}

export default async function manyTools(log: (message: string) => void): Promise<Row[]> {
  const { dir, remove } = tempDir('many-tools');
  const bigArgs = [catalogServerPath, `--synthetic=${TOOLS}`];
  const configPath = writeConfig(dir, { big: { command: NODE, args: bigArgs }, ...manyServers(99) });
  const host = createHost({ cwd: dir, configPath, savedCatalogs: { dir: join(dir, 'catalogs') }, warmIsolates: 0 });
  const raw = await rawStdio(NODE, bigArgs);
  try {
    let listed = 0;
    const firstList = await timeOnce(async () => {
      const { servers } = await host.list({ server: 'big' });
      listed = servers[0]?.status === 'connected' ? servers[0].tools.length : 0;
    });
    if (listed !== TOOLS) throw new Error(`listed ${listed} tools, not ${TOOLS}`);
    const firstDescribe = await timeOnce(() => host.describe({ server: 'big' }));
    const others = await timeOnce(() => host.list({}));
    log(`the other 99 servers started in ${(others / 1000).toFixed(1)} s`);
    const firstSearch = await timeOnce(() => host.search({ query: QUERIES[0]! }));
    await settled(configPath);
    const loaded = await host.readConfig();
    const description = await describeRun(host, loaded, LIMITS);
    if (description.length > DESCRIPTION_MAX || !description.includes('- big (5000)')) throw new Error(`unexpected description: ${description.slice(-300)}`);
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        raw: () => timeEach(EACH, () => raw.client.listTools()),
        list: () => timeEach(EACH, () => host.list({ server: 'big' })),
        describe: () => timeEach(EACH, () => host.describe({ server: 'big' })),
        search: () => searches(host),
        searchBig: () => searches(host, 'big'),
        description: () => timeEach(EACH, () => describeRun(host, loaded, LIMITS)),
      },
    );
    return [
      row(SECTION, `raw SDK listTools of ${TOOLS} tools (warm client)`, 'ms', r.raw.samples),
      row(SECTION, `warm list of the ${TOOLS}-tool server`, 'ms', r.list.samples),
      row(SECTION, 'warm list / raw listTools', 'x', pairedRatios(r.list.perRoundMedian, r.raw.perRoundMedian)),
      row(SECTION, `warm describe of the ${TOOLS}-tool server`, 'ms', r.describe.samples),
      row(SECTION, 'warm describe / raw listTools', 'x', pairedRatios(r.describe.perRoundMedian, r.raw.perRoundMedian)),
      row(SECTION, `warm mcp_search over 100 servers (${TOOLS + 99 * 12} tools)`, 'ms', r.search.samples),
      row(SECTION, `warm mcp_search of the ${TOOLS}-tool server alone`, 'ms', r.searchBig.samples),
      row(SECTION, 'serve run description, 100 servers configured', 'ms', r.description.samples, {
        target: { max: 50, label: '≤ 50 ms' },
        note: `${description.length} characters`,
      }),
      value(SECTION, `first list of the ${TOOLS}-tool server (fresh host: spawn + init + tools/list)`, 'ms', firstList),
      value(SECTION, 'first describe of it (compiles each input schema to TypeScript, once per listing)', 'ms', firstDescribe),
      value(SECTION, 'first mcp_search over 100 live servers (builds the index)', 'ms', firstSearch),
    ];
  } finally {
    await Promise.all([host.close(), raw.close()]);
    remove();
  }
}
