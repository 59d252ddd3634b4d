/**
 * The load generator of section 17, one process of it: `node serve-load-client.js URL CLIENTS`
 * with the bearer token in BENCH_SERVE_TOKEN. It connects CLIENTS real SDK clients over
 * Streamable HTTP (one session each), prints `ready`, and on a stdin line `go WARMUP_MS
 * MEASURE_MS` each client runs the one-call script back to back until the window ends. Runs that
 * start and end inside the measured window count. The last stdout line is the JSON result: the
 * latencies, the runs completed in the window and this process's own CPU time in it (to show the
 * generator is not the bottleneck).
 *
 * Each run is one POST on the client's session, written and read here over a kept-alive socket,
 * not through the SDK client: on this 2-core machine the generator shares the cores with serve,
 * and the SDK client's ≈ 1.7 ms of CPU per run took a quarter of them (a remote agent's client
 * costs serve nothing). The session itself (initialize, its headers, the final DELETE) is the SDK's.
 */
import { Agent, request } from 'node:http';
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
  const clients: { client: Client; transport: StreamableHTTPClientTransport; run: () => Promise<CallToolResult> }[] = [];
  const agent = new Agent({ keepAlive: true });
  for (let i = 0; i < Number(count); i++) {
    const transport = new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: `bench-load-${i}`, version: '0' });
    await client.connect(transport);
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': transport.sessionId ?? '',
      'mcp-protocol-version': transport.protocolVersion ?? '',
    };
    let id = 0;
    clients.push({ client, transport, run: () => runOnce(new URL(url!), agent, headers, ++id) });
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
    clients.map(async ({ run }) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          const result = await run();
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
  await Promise.all(
    clients.map(async ({ client, transport }) => {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    }),
  );
  process.stdout.write(`${JSON.stringify(report)}\n`);
  lines.close();
}

/** One `tools/call run` on the session: the JSON-RPC response with `id`, from a JSON or an event-stream answer. */
function runOnce(url: URL, agent: Agent, headers: Record<string, string>, id: number): Promise<CallToolResult> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run', arguments: { code: SCRIPT } } });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
        const messages = (res.headers['content-type'] ?? '').startsWith('text/event-stream')
          ? text
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .map((line) => JSON.parse(line.slice(5)) as { id?: number; result?: CallToolResult; error?: { message: string } })
          : [JSON.parse(text) as { id?: number; result?: CallToolResult; error?: { message: string } }];
        const answer = messages.find((message) => message.id === id);
        if (answer?.result) resolve(answer.result);
        else reject(new Error(answer?.error?.message ?? `no answer to request ${id} in: ${text.slice(0, 300)}`));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
