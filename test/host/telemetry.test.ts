// OpenTelemetry through the real SDK (in-memory exporters): the span tree of a run that calls a
// stdio and an HTTP server in parallel, with the MCP semantic conventions' attributes; the trace
// context each server receives in _meta (and over HTTP as a header); failures' codes; metrics.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTraceHttp, type TraceRecord } from '../support/fixture-servers.js';
import { pointsOf, spanText, useOtel } from '../support/otel.js';
import { traceServerPath, v2ServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

const STDIO_SECRET = 'sk-stdio-5fb2c1e0a9d84b7f';
const HTTP_SECRET = 'hk-http-93ad0c7e4b1f26d5';

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const traceparentOf = (span: ReadableSpan): string => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

describe('telemetry: spans and metrics of a run (the real OpenTelemetry SDK)', function () {
  this.timeout(60_000);
  const otel = useOtel();
  let http: Awaited<ReturnType<typeof startTraceHttp>> | undefined;
  let stdioRecords: string;

  const t = useTestHost(async (dir) => {
    stdioRecords = join(dir, 'stdio-records.jsonl');
    // The fixture echoes TRACE_SECRET into its errors: the HTTP one from its own environment.
    http = await startTraceHttp({ TRACE_SECRET: HTTP_SECRET });
    return {
      local: {
        command: process.execPath,
        args: [traceServerPath, `--record=${stdioRecords}`],
        env: { TRACE_SECRET: STDIO_SECRET },
        protocol: '2025-11-25',
      },
      remote: { url: http.url, headers: { 'X-Api-Key': HTTP_SECRET }, protocol: '2025-11-25' },
      // The v2 SDK's server, probed (auto): it speaks 2026-07-28, whose requests carry an envelope in _meta too.
      modern: { command: process.execPath, args: [v2ServerPath] },
      // Exits at once: a failed start, then its backoff window.
      broken: { command: process.execPath, args: ['-e', 'process.exit(3)'], protocol: '2025-11-25' },
    };
  });
  after(async () => http?.close());

  const stdioSeen = (): TraceRecord[] =>
    readFileSync(stdioRecords, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TraceRecord);

  it('a run calling a stdio and an HTTP server in parallel: one trace, each call under the run, each server sees its call span', async () => {
    otel.reset();
    const client = trace.getTracer('test').startSpan('client');
    const record = await context.with(trace.setSpan(context.active(), client), () =>
      t.host.run(`
const [a, b] = await Promise.all([
  tools.mcp_call({ server: "local", tool: "echo", arguments: { text: "one" } }),
  tools.mcp_call({ server: "remote", tool: "echo", arguments: { text: "two" } }),
]);
return [a.content[0].text, b.content[0].text];`),
    );
    client.end();
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.deepEqual(record.result, ['one', 'two']);
    const spans = otel.spans();
    const traceId = client.spanContext().traceId;
    for (const span of spans) assert.equal(span.spanContext().traceId, traceId, `${span.name} is in the client's trace`);

    const run = spans.find((s) => s.name === 'berry.run');
    assert.ok(run, 'a berry.run span');
    assert.equal(parentOf(run), client.spanContext().spanId);
    const calls = spans.filter((s) => s.name === 'tools/call echo');
    assert.equal(calls.length, 2);
    const byServer = new Map(calls.map((s) => [s.attributes['berry.server'], s]));
    const local = byServer.get('local');
    const remote = byServer.get('remote');
    assert.ok(local && remote);
    for (const span of [local, remote]) {
      assert.equal(parentOf(span), run.spanContext().spanId, 'a call is a child of its run');
      assert.equal(span.kind, SpanKind.CLIENT);
      assert.equal(span.attributes['mcp.method.name'], 'tools/call');
      assert.equal(span.attributes['gen_ai.tool.name'], 'echo');
      assert.equal(span.attributes['gen_ai.operation.name'], 'execute_tool');
      assert.equal(span.attributes['mcp.protocol.version'], '2025-11-25');
      assert.equal(span.attributes['berry.machine'], 'local');
      // The check before the run opened both connections (under the run's span), so the calls reuse them.
      assert.equal(span.attributes['berry.connection.reused'], true);
      assert.equal(typeof span.attributes['jsonrpc.request.id'], 'string');
      assert.equal(span.status.code, SpanStatusCode.UNSET);
      assert.equal(span.attributes['error.type'], undefined);
    }
    assert.equal(local.attributes['network.transport'], 'pipe');
    assert.equal(local.attributes['server.address'], undefined);
    assert.equal(remote.attributes['network.transport'], 'tcp');
    assert.equal(remote.attributes['server.address'], '127.0.0.1');
    assert.equal(remote.attributes['server.port'], http!.port);
    assert.equal(remote.attributes['mcp.session.id'], 'trace-session');

    // Each connection start: its start span, the spawn (stdio), the handshake; the listing.
    const starts = spans.filter((s) => s.name === 'berry.connection.start');
    assert.deepEqual(starts.map((s) => s.attributes['berry.server']).sort(), ['local', 'remote']);
    const localStart = starts.find((s) => s.attributes['berry.server'] === 'local')!;
    const spawn = spans.find((s) => s.name === 'berry.spawn');
    assert.ok(spawn && parentOf(spawn) === localStart.spanContext().spanId, 'the spawn is under the stdio start');
    const handshakes = spans.filter((s) => s.name === 'initialize');
    assert.equal(handshakes.length, 2);
    for (const handshake of handshakes) {
      assert.ok(
        starts.some((start) => start.spanContext().spanId === parentOf(handshake)),
        'a handshake is under its start',
      );
      assert.equal(handshake.attributes['mcp.protocol.version'], '2025-11-25');
    }
    assert.ok(spans.some((s) => s.name === 'tools/list' && s.attributes['berry.server'] === 'local'));

    // What the servers got: the call span's own context in _meta, and over HTTP in the header too.
    const localCall = stdioSeen().find((r) => r.method === 'tools/call');
    assert.equal(localCall?.traceparent, traceparentOf(local));
    assert.equal(String(localCall?.id), local.attributes['jsonrpc.request.id']);
    const remoteCall = (await http!.records()).find((r) => r.method === 'tools/call');
    assert.equal(remoteCall?.traceparent, traceparentOf(remote));
    assert.equal(remoteCall?.header, traceparentOf(remote));
    const initialize = stdioSeen().find((r) => r.method === 'initialize');
    assert.equal(initialize?.traceparent?.split('-')[1], traceId, 'the handshake carries the trace too');
  });

  it('a second run reuses the connections, and says so', async () => {
    otel.reset();
    const record = await t.host.run('return (await tools.mcp_call({ server: "remote", tool: "echo", arguments: { text: "again" } })).content[0].text;');
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const call = otel.spans().find((s) => s.name === 'tools/call echo');
    assert.equal(call?.attributes['berry.connection.reused'], true);
    assert.equal(
      otel.spans().some((s) => s.name === 'berry.connection.start'),
      false,
    );
  });

  it("a failing call carries its error code and the server's JSON-RPC code; a tool's error result is tool_error; no secret anywhere", async () => {
    otel.reset();
    const record = await t.host.run(`
const out = [];
for (const server of ["local", "remote"]) {
  try { await tools.mcp_call({ server, tool: "fail", arguments: {} }); } catch (e) { out.push(e.code); }
  const leak = await tools.mcp_call({ server, tool: "leak", arguments: {} });
  out.push(leak.isError);
}
return out;`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const [localCode, localLeak, remoteCode, remoteLeak] = record.result as [string, boolean, string, boolean];
    assert.equal(localLeak, true);
    assert.equal(remoteLeak, true);
    const fails = otel.spans().filter((s) => s.name === 'tools/call fail');
    assert.equal(fails.length, 2);
    for (const span of fails) {
      const code = span.attributes['berry.server'] === 'local' ? localCode : remoteCode;
      assert.equal(span.attributes['error.type'], code);
      assert.equal(span.attributes['rpc.response.status_code'], '-32050');
      assert.equal(span.status.code, SpanStatusCode.ERROR);
      assert.match(span.status.message ?? '', /the backend refused key/);
    }
    const leaks = otel.spans().filter((s) => s.name === 'tools/call leak');
    assert.equal(leaks.length, 2);
    for (const span of leaks) {
      assert.equal(span.attributes['error.type'], 'tool_error');
      assert.equal(span.status.code, SpanStatusCode.ERROR);
    }
    const run = otel.spans().find((s) => s.name === 'berry.run');
    assert.equal(run?.attributes['error.type'], undefined, 'the run itself succeeded');
    for (const span of otel.spans()) {
      const text = spanText(span);
      assert.ok(!text.includes(STDIO_SECRET) && !text.includes(HTTP_SECRET), `no secret in ${span.name}: ${text}`);
    }
  });

  it('a 2026-07-28 server takes the trace context beside its _meta envelope; the handshake is server/discover', async () => {
    otel.reset();
    const record = await t.host.run('return (await tools.mcp_call({ server: "modern", tool: "echo", arguments: { text: "new era" } })).content[0].text;');
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.equal(record.result, 'new era');
    const call = otel.spans().find((s) => s.name === 'tools/call echo');
    assert.equal(call?.attributes['mcp.protocol.version'], '2026-07-28');
    assert.ok(otel.spans().some((s) => s.name === 'server/discover' && s.attributes['berry.server'] === 'modern'));
  });

  it("a server that fails to start: the start span carries the start's error code", async () => {
    otel.reset();
    const record = await t.host.run('try { await tools.mcp_call({ server: "broken", tool: "x", arguments: {} }); } catch (e) { return e.code; }');
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const start = otel.spans().find((s) => s.name === 'berry.connection.start' && s.attributes['berry.server'] === 'broken');
    assert.ok(start);
    assert.equal(start.attributes['error.type'], record.result);
    assert.equal(start.status.code, SpanStatusCode.ERROR);
  });

  it('a run that fails carries its error code', async () => {
    otel.reset();
    const record = await t.host.run('throw new Error("no")');
    assert.equal(record.ok, false);
    const run = otel.spans().find((s) => s.name === 'berry.run');
    assert.equal(run?.attributes['error.type'], record.error?.code);
    assert.equal(run?.status.code, SpanStatusCode.ERROR);
    assert.equal(run?.status.message, undefined, "a script's message is not the span's");
  });

  it('metrics: mcp.client.operation.duration per the conventions, run duration and runs in flight, starts, pool and backoff gauges', async () => {
    const metrics = await otel.metrics();
    const durations = pointsOf(metrics, 'mcp.client.operation.duration');
    const echoes = durations.filter(
      (p) => p.attributes['mcp.method.name'] === 'tools/call' && p.attributes['gen_ai.tool.name'] === 'echo' && p.attributes['berry.server'] !== 'modern',
    );
    assert.deepEqual(echoes.map((p) => p.attributes['network.transport']).sort(), ['pipe', 'tcp'], JSON.stringify(durations.map((p) => p.attributes)));
    assert.equal(
      echoes.reduce((sum, p) => sum + (p.value as { count: number }).count, 0),
      3,
    );
    assert.ok(durations.some((p) => p.attributes['error.type'] === 'tool_error'));
    assert.ok(durations.some((p) => p.attributes['mcp.method.name'] === 'initialize' && p.attributes['mcp.protocol.version'] === '2025-11-25'));
    assert.ok(durations.some((p) => p.attributes['mcp.method.name'] === 'server/discover' && p.attributes['mcp.protocol.version'] === '2026-07-28'));
    const runs = pointsOf(metrics, 'berry.run.duration');
    assert.ok(runs.length > 0);
    assert.deepEqual(
      pointsOf(metrics, 'berry.runs.active').map((p) => p.value),
      [0],
    );
    const starts = pointsOf(metrics, 'berry.connection.starts');
    assert.deepEqual(starts.map((p) => p.attributes['berry.server']).sort(), ['broken', 'local', 'modern', 'remote']);
    const failures = pointsOf(metrics, 'berry.connection.failures');
    assert.deepEqual(
      failures.map((p) => [p.attributes['berry.server'], typeof p.attributes['error.type']]),
      [['broken', 'string']],
    );
    const pooled = pointsOf(metrics, 'berry.connections');
    assert.equal(pooled.find((p) => p.attributes.state === 'idle')?.value, 3);
    assert.deepEqual(
      pointsOf(metrics, 'berry.backoff.open').map((p) => p.value),
      [1],
      "the broken server's window is open",
    );
    for (const point of durations) assert.ok(!JSON.stringify(point.attributes).includes(HTTP_SECRET));
  });
});
