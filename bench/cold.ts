/**
 * Section 5: cold start, the first operation on a server. A fresh host doing
 * `host.list({ server })` (spawn + initialize + tools/list) against a raw SDK client doing
 * StdioClientTransport + connect + listTools, both on server-everything. Closing is timed apart.
 * The SDK gives a server a reduced environment by default, the host the whole one (the design):
 * a third side runs the raw SDK with `env: process.env`, to tell the two costs apart.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHost } from '../src/index.js';
import { everythingEntry, everythingPath, NODE, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios } from './stats.js';

const SECTION = '5 cold start';
const ROUNDS = 5;

export default async function coldStart(): Promise<Row[]> {
  const { dir, remove } = tempDir('cold');
  const configPath = writeConfig(dir, { everything: everythingEntry() });
  const closes = { host: [] as number[], raw: [] as number[], rawFullEnv: [] as number[] };
  try {
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        host: async () => {
          const started = performance.now();
          const host = createHost({ cwd: dir, configPath });
          const listed = await host.list({ server: 'everything' });
          const elapsed = performance.now() - started;
          const status = listed.servers[0]?.status;
          const closeStarted = performance.now();
          await host.close();
          closes.host.push(performance.now() - closeStarted);
          if (status !== 'connected') throw new Error(`server-everything did not connect: ${JSON.stringify(listed.servers[0])}`);
          return elapsed;
        },
        raw: () => rawColdStart(closes.raw),
        rawFullEnv: () => rawColdStart(closes.rawFullEnv, process.env as Record<string, string>),
      },
    );
    // The warm-up round's closes are in there too: drop them.
    const measured = (list: number[]): number[] => list.slice(list.length - ROUNDS);
    return [
      row(SECTION, 'raw SDK: spawn + connect + listTools', 'ms', r.raw.samples),
      row(SECTION, 'fresh host: host.list({ server }) (spawn + init + list)', 'ms', r.host.samples),
      row(SECTION, 'raw SDK with env: process.env', 'ms', r.rawFullEnv.samples),
      row(SECTION, 'fresh host / raw SDK', 'x', pairedRatios(r.host.perRound, r.raw.perRound)),
      row(SECTION, 'fresh host / raw SDK with the same env', 'x', pairedRatios(r.host.perRound, r.rawFullEnv.perRound)),
      row(SECTION, '(close) host.close()', 'ms', measured(closes.host)),
      row(SECTION, '(close) raw client.close()', 'ms', measured(closes.raw)),
    ];
  } finally {
    remove();
  }
}

/** spawn + connect + listTools with a raw SDK client; pushes the time its close took. */
async function rawColdStart(closes: number[], env?: Record<string, string>): Promise<number> {
  const started = performance.now();
  const transport = new StdioClientTransport({ command: NODE, args: [everythingPath], stderr: 'pipe', ...(env ? { env } : {}) });
  (transport.stderr as NodeJS.ReadableStream | null)?.resume();
  const client = new Client({ name: 'bench-raw', version: '0' });
  await client.connect(transport);
  await client.listTools();
  const elapsed = performance.now() - started;
  const closeStarted = performance.now();
  await client.close();
  closes.push(performance.now() - closeStarted);
  return elapsed;
}
