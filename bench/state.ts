/**
 * Section 20: `store` and `load` of a 100 KB value (1,120 records of about 90 bytes of JSON).
 *
 * - In process (`host.run`): one store and one load, each timed inside the script as the mean of a
 *   loop of LOOP, against what copying the same value costs the script anyway (JSON.stringify and
 *   JSON.parse of it, same loop).
 * - A whole run that loads the value, against `return 1` with the same state: what a 100 KB load
 *   adds to a run, in process and through `serve` (stdio, its default worker processes, where the
 *   state crosses to the worker with each run and its changes come back).
 * - Through serve, `return 1` in a session holding the 100 KB value against one holding nothing:
 *   what carrying the state to the worker costs a run that does not use it.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createHost, createRunState } from '../src/index.js';
import { PROJECT_ROOT } from '../test/support/paths.js';
import { NODE, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedDifferences, pairedRatios, timeEach } from './stats.js';

const SECTION = '20 store and load';
const ROUNDS = 10;
const PER_ROUND = 20;
const LOOP = 200;
/** The script that makes the value: ≈ 100 KB of JSON. */
const MAKE = `const value = Array.from({ length: 1120 }, (_, i) => ({ id: i, name: 'record ' + i, tags: ['alpha', 'beta'], score: i / 7, ok: i % 2 === 0 }));`;
const timed = (body: string): string => `${MAKE}\nconst t0 = Date.now();\nfor (let i = 0; i < ${LOOP}; i++) { ${body} }\nreturn (Date.now() - t0) / ${LOOP};`;

export default async function stateCost(log: (message: string) => void): Promise<Row[]> {
  const { dir, remove } = tempDir('state');
  const config = writeConfig(dir, {});
  const host = createHost({ cwd: dir, configPath: config });
  const state = createRunState();
  const transport = new StdioClientTransport({
    command: NODE,
    args: ['--no-node-snapshot', join(PROJECT_ROOT, 'dist/src/bin.js'), 'serve', '--config', config],
    cwd: dir,
    stderr: 'pipe',
  });
  (transport.stderr as NodeJS.ReadableStream | null)?.resume();
  const empty = new StdioClientTransport({
    command: NODE,
    args: ['--no-node-snapshot', join(PROJECT_ROOT, 'dist/src/bin.js'), 'serve', '--config', config],
    cwd: dir,
    stderr: 'pipe',
  });
  (empty.stderr as NodeJS.ReadableStream | null)?.resume();
  const served = new Client({ name: 'bench-state', version: '0' });
  const servedEmpty = new Client({ name: 'bench-state-empty', version: '0' });
  const inProcess = async (code: string): Promise<unknown> => {
    const record = await host.run(code, { state });
    if (!record.ok) throw new Error(`run failed: ${JSON.stringify(record.error)}`);
    return record.result;
  };
  const through = async (client: Client, code: string): Promise<unknown> => {
    const result = (await client.callTool({ name: 'run', arguments: { code } })) as CallToolResult;
    if (result.isError) throw new Error(`run failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent?.['result'];
  };
  try {
    await Promise.all([served.connect(transport), servedEmpty.connect(empty)]);
    const bytes = (await inProcess(`${MAKE}\nstore('v', value); return JSON.stringify(value).length;`)) as number;
    await through(served, `${MAKE}\nstore('v', value);`);
    await through(servedEmpty, 'return 1');
    log(`the value is ${bytes} bytes of JSON`);
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        store: async () => (await inProcess(timed(`store('v', value);`))) as number,
        load: async () => (await inProcess(timed(`load('v');`))) as number,
        copy: async () => (await inProcess(timed('JSON.parse(JSON.stringify(value));'))) as number,
        runLoad: () => timeEach(PER_ROUND, () => inProcess(`return load('v').length`)),
        runPlain: () => timeEach(PER_ROUND, () => inProcess('return 1')),
        serveLoad: () => timeEach(PER_ROUND, () => through(served, `return load('v').length`)),
        servePlain: () => timeEach(PER_ROUND, () => through(served, 'return 1')),
        serveEmpty: () => timeEach(PER_ROUND, () => through(servedEmpty, 'return 1')),
      },
    );
    const note = `${bytes} bytes of JSON; mean of ${LOOP} in one run`;
    return [
      row(SECTION, 'store of a 100 KB value, in process', 'ms', r.store.perRound, { note }),
      row(SECTION, 'load of a 100 KB value, in process', 'ms', r.load.perRound, { note }),
      row(SECTION, 'JSON.parse(JSON.stringify(value)) in the script, same value', 'ms', r.copy.perRound, { note }),
      row(
        SECTION,
        'store + load / the script copying the value itself',
        'x',
        pairedRatios(
          r.store.perRound.map((s, i) => s + r.load.perRound[i]!),
          r.copy.perRound,
        ),
      ),
      row(
        SECTION,
        'host.run that loads it - host.run("return 1"), same state',
        'ms (diff)',
        pairedDifferences(r.runLoad.perRoundMedian, r.runPlain.perRoundMedian),
      ),
      row(
        SECTION,
        'serve run that loads it (worker) - serve run("return 1"), same session',
        'ms (diff)',
        pairedDifferences(r.serveLoad.perRoundMedian, r.servePlain.perRoundMedian),
      ),
      row(
        SECTION,
        'serve run("return 1"), session holding 100 KB - empty session',
        'ms (diff)',
        pairedDifferences(r.servePlain.perRoundMedian, r.serveEmpty.perRoundMedian),
        {
          note: 'the state crossing to the worker and back with a run that does not use it',
        },
      ),
      row(SECTION, 'serve run("return 1"), session holding 100 KB', 'ms', r.servePlain.samples),
    ];
  } finally {
    await Promise.all([served.close().catch(() => {}), servedEmpty.close().catch(() => {}), host.close()]);
    remove();
  }
}
