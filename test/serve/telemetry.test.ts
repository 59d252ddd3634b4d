// End to end: a client's trace goes through `berry-mcp serve --http` to a downstream server, and
// serve's spans and metrics reach an OTLP/HTTP receiver (JSON) on loopback. Serve starts the
// OpenTelemetry SDK only because OTEL_EXPORTER_OTLP_ENDPOINT asks; GET /healthz answers without a token.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveHttp, type HttpServe } from '../support/berry-serve.js';
import { otlpAttribute, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { traceServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';
import type { TraceRecord } from '../support/fixture-servers.js';

const TOKEN = 'serve-telemetry-token-0123456789';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

describe('telemetry end to end: client → serve → downstream server, exported over OTLP/HTTP', function () {
  this.timeout(90_000);
  let tmp: ReturnType<typeof tempDir>;
  let receiver: OtlpReceiver;
  let serve: HttpServe;
  let client: Awaited<ReturnType<HttpServe['connect']>>;
  let records: string;

  before(async () => {
    tmp = tempDir('berry-serve-otel-');
    records = join(tmp.dir, 'records.jsonl');
    writeConfig(tmp.dir, { down: { command: process.execPath, args: [traceServerPath, `--record=${records}`], protocol: '2025-11-25' } });
    receiver = await startOtlpReceiver();
    serve = await serveHttp(['--config', 'mcp.json', '--otel-capture-arguments'], {
      cwd: tmp.dir,
      env: {
        BERRY_SERVE_TOKEN: TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRIC_EXPORT_INTERVAL: '500',
        OTEL_SERVICE_NAME: 'berry-serve-under-test',
      },
    });
    client = await serve.connect(TOKEN);
  });
  after(async () => {
    await serve?.close();
    await receiver?.close();
    tmp?.cleanup();
  });

  const seen = (): TraceRecord[] =>
    readFileSync(records, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TraceRecord);

  it("the client's trace id in the run request's _meta reaches the downstream server, and serve's spans arrive at the receiver", async () => {
    const result = await client.callTool({
      name: 'run',
      arguments: { code: 'return (await tools.mcp_call({ server: "down", tool: "echo", arguments: { text: "hello" } })).content[0].text;' },
      _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01`, tracestate: 'client=1' },
    });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const call = seen().find((r) => r.method === 'tools/call');
    assert.ok(call?.traceparent, 'the downstream server got a traceparent');
    assert.equal(call.traceparent.split('-')[1], TRACE_ID);
    assert.equal(call.tracestate, 'client=1', 'tracestate travels on');

    // The call span may be exported in an earlier batch than the run's, which ends after it.
    const exportedBoth = (): boolean =>
      ['tools/call echo', 'berry.run'].every((name) => receiver.spans().some((s) => s.name === name && s.traceId === TRACE_ID));
    await waitFor(exportedBoth, 15_000, 'the exported call and run spans');
    const spans = receiver.spans();
    const run = spans.find((s) => s.name === 'berry.run' && s.traceId === TRACE_ID);
    assert.ok(run, 'the run span, in the client trace');
    assert.equal(run.parentSpanId, CLIENT_SPAN, "serve's run continues the client's span");
    const exported = spans.find((s) => s.name === 'tools/call echo' && s.traceId === TRACE_ID);
    assert.ok(exported);
    assert.equal(exported.parentSpanId, run.spanId);
    assert.equal(call.traceparent.split('-')[2], exported.spanId, "the downstream server's parent is the call span");
    assert.equal(otlpAttribute(exported, 'mcp.method.name'), 'tools/call');
    assert.equal(otlpAttribute(exported, 'berry.server'), 'down');
    assert.equal(otlpAttribute(exported, 'gen_ai.tool.call.arguments'), '{"text":"hello"}', 'serve --otel-capture-arguments');
    const resource = JSON.stringify(receiver.bodies('/v1/traces'));
    assert.match(resource, /berry-serve-under-test/);
  });

  it('the traceparent header is continued when the request has no _meta', async () => {
    const header = `00-${'a'.repeat(31)}1-${'b'.repeat(15)}2-01`;
    const response = await fetch(serve.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'run',
        traceparent: header,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'run',
          arguments: { code: 'return (await tools.mcp_call({ server: "down", tool: "echo", arguments: { text: "h" } })).content[0].text;' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    await waitFor(
      () => seen().some((r) => r.method === 'tools/call' && r.traceparent?.split('-')[1] === `${'a'.repeat(31)}1`),
      15_000,
      'the header trace downstream',
    );
  });

  it('metrics arrive: mcp.client.operation.duration, run duration, runs in flight, queue depth, connections', async () => {
    const wanted = [
      'mcp.client.operation.duration',
      'berry.run.duration',
      'berry.runs.active',
      'berry.serve.queue.depth',
      'berry.connections',
      'berry.connection.starts',
    ];
    await waitFor(() => wanted.every((name) => receiver.metricNames().has(name)), 15_000, `the metrics ${wanted.join(', ')}`);
  });

  it('GET /healthz answers 200 without a token, says nothing more, and opens nothing else', async () => {
    const health = await fetch(new URL('/healthz', serve.url));
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'ok\n');
    const mcp = await fetch(serve.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(mcp.status, 401, 'the MCP endpoint still wants its token');
  });
});
