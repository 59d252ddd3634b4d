/**
 * The load generator of section 17, one process of it: `node serve-load-client.js URL CLIENTS`
 * with the bearer token in BENCH_SERVE_TOKEN. It connects CLIENTS real SDK clients over
 * Streamable HTTP (one session each), prints `ready`, and on a stdin line `go WARMUP_MS
 * MEASURE_MS` each client runs the one-call script back to back until the window ends. Runs that
 * start and end inside the measured window count. The last stdout line is the JSON result: the
 * latencies, the runs completed in the window and this process's own CPU time in it (to show the
 * generator is not the bottleneck).
 */
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface ClientReport {
  readonly latenciesMs: number[];
  readonly failures: number;
  readonly firstFailure?: string;
  /** CPU time (user + system) of this process during the measured window. */
  readonly cpuMs: number;
  readonly windowMs: number;
}

export const SCRIPT = 'return await tools.mcp_call({ server: "everything", tool: "echo", arguments: { message: "x" } });';

async function main(): Promise<void> {
  const [url, count] = process.argv.slice(2);
  const token = process.env['BENCH_SERVE_TOKEN'] ?? '';
  const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
  for (let i = 0; i < Number(count); i++) {
    const transport = new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: `bench-load-${i}`, version: '0' });
    await client.connect(transport);
    clients.push({ client, transport });
  }
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  const go = await new Promise<string>((resolve) => lines.once('line', resolve));
  const [, warmupMs, measureMs] = go.split(' ').map(Number);
  const start = performance.now();
  const from = start + warmupMs!;
  const until = from + measureMs!;
  const latenciesMs: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let cpuAtFrom: NodeJS.CpuUsage | undefined;
  const cpuTimer = setTimeout(() => (cpuAtFrom = process.cpuUsage()), warmupMs);
  await Promise.all(
    clients.map(async ({ client }) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          const result = (await client.callTool({ name: 'run', arguments: { code: SCRIPT } }, undefined, { timeout: 120_000 })) as CallToolResult;
          if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 300));
          const t1 = performance.now();
          if (t0 >= from && t1 <= until) latenciesMs.push(t1 - t0);
        } catch (error) {
          failures++;
          firstFailure ??= (error as Error).message;
        }
      }
    }),
  );
  clearTimeout(cpuTimer);
  const cpu = process.cpuUsage(cpuAtFrom);
  const report: ClientReport = {
    latenciesMs,
    failures,
    ...(firstFailure === undefined ? {} : { firstFailure }),
    cpuMs: (cpu.user + cpu.system) / 1000,
    windowMs: measureMs!,
  };
  // Ends each session (DELETE), so serve's session cap starts the next level empty.
  await Promise.all(clients.map(async ({ client, transport }) => {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }));
  process.stdout.write(`${JSON.stringify(report)}\n`);
  lines.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
