/**
 * Section 10: `berry-mcp serve`, the cost of the MCP hop in front of the sandbox. A serve process
 * is started as an MCP client would (stdio), with one server (server-everything) in its mcp.json.
 *
 * - `run` of `return 1` through serve (one tools/call from an SDK Client) against `host.run` of the
 *   same script in this process: what serving adds to a fresh isolate.
 * - A `run` whose script makes one sandboxed echo call, through serve, against a raw SDK
 *   `callTool(echo)` on its own server-everything: what a model pays for code mode on one call.
 * - A `run` looping over 200 echo calls (timed inside the script), per call, against the raw call:
 *   the steady-state cost of a call once the script runs.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { createHost } from '../src/index.js';
import { PROJECT_ROOT } from '../test/support/paths.js';
import { ECHO, everythingEntry, everythingPath, NODE, rawEcho, rawStdio, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedDifferences, pairedRatios, timeEach } from './stats.js';

const SECTION = '10 serve';
const ROUNDS = 12;
const PER_ROUND = 20;
const LOOP = 200;

export default async function serveOverhead(): Promise<Row[]> {
  const { dir, remove } = tempDir('serve');
  const config = writeConfig(dir, { everything: everythingEntry() });
  const host = createHost({ cwd: dir, configPath: config });
  const raw = await rawStdio(NODE, [everythingPath]);
  const transport = new StdioClientTransport({
    command: NODE,
    args: ['--no-node-snapshot', join(PROJECT_ROOT, 'dist/src/bin.js'), 'serve', '--config', config],
    cwd: dir,
    stderr: 'pipe',
  });
  (transport.stderr as NodeJS.ReadableStream | null)?.resume();
  const served = new Client({ name: 'bench-serve', version: '0' });
  const callRun = async (code: string): Promise<unknown> => {
    const result = (await served.callTool({ name: 'run', arguments: { code } })) as CallToolResult;
    if (result.isError) throw new Error(`run failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent?.['result'];
  };
  const oneCall = `await tools.mcp_call(${JSON.stringify(ECHO)}); return 1;`;
  const loop = `const t0 = Date.now(); for (let i = 0; i < ${LOOP}; i++) await tools.mcp_call(${JSON.stringify(ECHO)}); return Date.now() - t0;`;
  try {
    await served.connect(transport);
    await callRun(oneCall); // connects serve's host to server-everything
    await host.run('return 1');
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        serveRun: () => timeEach(PER_ROUND, () => callRun('return 1')),
        hostRun: () => timeEach(PER_ROUND, () => host.run('return 1')),
        serveEcho: () => timeEach(PER_ROUND, () => callRun(oneCall)),
        raw: () => timeEach(PER_ROUND, () => rawEcho(raw)),
        serveLoop: async () => ((await callRun(loop)) as number) / LOOP,
      },
    );
    return [
      row(SECTION, 'run("return 1") through serve (stdio)', 'ms', r.serveRun.samples),
      row(SECTION, 'host.run("return 1") in process', 'ms', r.hostRun.samples),
      row(SECTION, 'serve run / host.run (median)', 'x', pairedRatios(r.serveRun.perRoundMedian, r.hostRun.perRoundMedian)),
      row(SECTION, 'serve run - host.run (median)', 'ms (diff)', pairedDifferences(r.serveRun.perRoundMedian, r.hostRun.perRoundMedian)),
      row(SECTION, 'run with one sandboxed echo call, through serve', 'ms', r.serveEcho.samples),
      row(SECTION, 'raw SDK callTool(echo), direct', 'ms', r.raw.samples),
      row(SECTION, 'serve echo run - raw call (median)', 'ms (diff)', pairedDifferences(r.serveEcho.perRoundMedian, r.raw.perRoundMedian)),
      row(SECTION, `echo call inside a serve run (loop of ${LOOP}), per call`, 'ms', r.serveLoop.perRound),
      row(SECTION, 'echo call inside a serve run / raw call', 'x', pairedRatios(r.serveLoop.perRound, r.raw.perRound), {
        note: `per round: mean call of a ${LOOP}-call loop in one run over the mean raw call`,
      }),
    ];
  } finally {
    await Promise.all([served.close().catch(() => {}), host.close(), raw.close()]);
    remove();
  }
}
