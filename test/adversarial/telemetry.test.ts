// The cheapest ways to get a secret into a span, or past serve's token through the telemetry
// surface: a server that echoes the config's secrets into its errors (they become span status);
// arguments holding a secret under otel.captureArguments; a hostile traceparent / tracestate from
// a serve client; /healthz as a way around /mcp's token.
import assert from 'node:assert/strict';
import { propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { parentContext } from '../../src/bindings/telemetry/index.js';
import { run, serveHttp, serveStdio, texts, type HttpServe } from '../support/berry-serve.js';
import { spanText, useOtel } from '../support/otel.js';
import { traceServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

// Characters whose percent-encoding and JSON escaping differ from the value itself.
const SECRET = 'sk-otel/"9f3b+c2d 7e1a"\\41';
const TOKEN = 'adversarial-telemetry-token-42';

describe('adversarial: telemetry', function () {
  this.timeout(60_000);

  describe('spans of a host whose servers echo its secrets', () => {
    const otel = useOtel();
    const t = useTestHost(
      () => ({
        traced: { command: process.execPath, args: [traceServerPath], env: { TRACE_SECRET: SECRET }, protocol: '2025-11-25' },
      }),
      { options: { otel: { captureArguments: true } } },
    );

    it('an error message echoing a config secret (plain, percent-encoded, JSON-escaped) reaches no span status, attribute or event', async () => {
      otel.reset();
      const record = await t.host.run('try { await tools.mcp_call({ server: "traced", tool: "fail", arguments: {} }); } catch (e) { return e.code; }');
      assert.equal(record.ok, true, JSON.stringify(record.error));
      const failed = otel.spans().find((s) => s.name === 'tools/call fail');
      assert.ok(failed?.status.message, 'the status carries the (masked) message');
      // All three renderings were there, and were masked (the gate's ***).
      assert.match(failed.status.message, /the backend refused key \*\*\* \(\*\*\*, \{"secret":"\*\*\*"\}\)/);
      const renderings = [SECRET, encodeURIComponent(SECRET), JSON.stringify(SECRET).slice(1, -1), 'sk-otel/'];
      for (const span of otel.spans()) {
        const text = spanText(span);
        for (const rendering of renderings) assert.ok(!text.includes(rendering), `${span.name} shows ${rendering}: ${text}`);
      }
    });

    it('captureArguments: arguments holding the secret are on the span, masked; other argument values as given', async () => {
      otel.reset();
      const record = await t.host.run(
        `return (await tools.mcp_call({ server: "traced", tool: "echo", arguments: { text: "plain words", nested: { key: ${JSON.stringify(SECRET)} } } })).content[0].text;`,
      );
      assert.equal(record.ok, true, JSON.stringify(record.error));
      const call = otel.spans().find((s) => s.name === 'tools/call echo');
      const captured = call?.attributes['gen_ai.tool.call.arguments'];
      assert.equal(typeof captured, 'string');
      assert.match(captured as string, /plain words/);
      assert.ok(!(captured as string).includes('sk-otel'), captured as string);
      for (const span of otel.spans()) assert.ok(!spanText(span).includes('sk-otel'), spanText(span));
    });

    it('without captureArguments, no argument value is on any span', async () => {
      otel.reset();
      const host = t.open();
      const record = await host.run(
        'return (await tools.mcp_call({ server: "traced", tool: "echo", arguments: { text: "do-not-record-me" } })).content[0].text;',
      );
      assert.equal(record.ok, true, JSON.stringify(record.error));
      assert.ok(otel.spans().some((s) => s.name === 'tools/call echo'));
      for (const span of otel.spans()) {
        assert.equal(span.attributes['gen_ai.tool.call.arguments'], undefined);
        assert.ok(!spanText(span).includes('do-not-record-me'));
      }
    });

    it('a hostile traceparent gives no parent: malformed, wrong version, not a string, huge, with a huge tracestate', () => {
      const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      assert.equal(trace.getSpanContext(parentContext({ traceparent: valid }))?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736', 'the propagator is registered');
      const hostile: unknown[] = [
        { traceparent: 'not-a-traceparent' },
        { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' },
        { traceparent: 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
        { traceparent: { toString: () => valid } },
        { traceparent: `${valid}${' '.repeat(100_000)}` },
        { traceparent: ['00', '4bf92f3577b34da6a3ce929d0e0e4736'] },
        null,
        'traceparent',
      ];
      for (const meta of hostile) assert.equal(trace.getSpanContext(parentContext(meta)), undefined, JSON.stringify(meta)?.slice(0, 80));
      // A huge tracestate is dropped, the traceparent still continued.
      const huge = parentContext({ traceparent: valid, tracestate: `a=${'b'.repeat(100_000)}` });
      assert.equal(trace.getSpanContext(huge)?.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
      assert.equal(trace.getSpanContext(huge)?.traceState, undefined);
      // 33 members: the propagator keeps at most 32.
      const many = Array.from({ length: 40 }, (_, i) => `k${i}=v`).join(',');
      const state = trace.getSpanContext(parentContext({ traceparent: valid, tracestate: many }))?.traceState?.serialize() ?? '';
      assert.ok(state.split(',').length <= 32, state);
      assert.equal(propagation.fields().includes('traceparent'), true);
      assert.equal(trace.getSpanContext(parentContext(undefined, new Headers({ traceparent: 'zz' }))), undefined);
      assert.equal(parentContext(undefined), ROOT_CONTEXT);
    });
  });

  describe('serve', () => {
    let tmp: ReturnType<typeof tempDir>;
    let serve: HttpServe | undefined;
    before(async () => {
      tmp = tempDir('berry-adv-otel-');
      writeConfig(tmp.dir, { traced: { command: process.execPath, args: [traceServerPath], protocol: '2025-11-25' } });
      serve = await serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN } });
    });
    after(async () => {
      await serve?.close();
      tmp?.cleanup();
    });

    it('a run whose _meta holds a hostile trace context still runs (no false refusal)', async () => {
      const served = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir });
      try {
        for (const _meta of [
          { traceparent: 'x'.repeat(200_000), tracestate: 'y'.repeat(200_000) },
          { traceparent: 42, baggage: { a: 1 } },
        ]) {
          const result = (await served.client.callTool({
            name: 'run',
            arguments: { code: 'return (await tools.mcp_call({ server: "traced", tool: "echo", arguments: { text: "fine" } })).content[0].text;' },
            _meta,
          })) as Parameters<typeof texts>[0];
          assert.equal(result.isError, undefined, texts(result).join('\n'));
          assert.match(texts(result).join('\n'), /fine/);
        }
        const plain = await run(served.client, 'return 1 + 1;');
        assert.equal(plain.isError, undefined);
      } finally {
        await served.close();
      }
    });

    it('/healthz: 200 "ok" and nothing else, no token needed; not a way around /mcp', async () => {
      const base = new URL(serve!.url);
      const health = await fetch(new URL('/healthz', base));
      assert.equal(health.status, 200);
      assert.equal(await health.text(), 'ok\n');
      assert.equal(health.headers.get('server'), null);
      assert.ok(![...health.headers.keys()].some((name) => /version|session|token/i.test(name)));
      assert.equal((await fetch(new URL('/healthz', base), { method: 'POST', body: '{}' })).status, 405);
      // Paths that only look like /healthz reach /mcp's checks, or nothing.
      const mcpLike = ['/healthz/../mcp', '/healthz/..%2Fmcp', '/healthz%2F..%2Fmcp', '/mcp?healthz', '/mcp#/healthz'];
      for (const path of mcpLike) {
        const response = await fetch(`${base.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        assert.ok([401, 404].includes(response.status), `${path}: ${response.status}`);
      }
      const withBadToken = await fetch(new URL('/healthz', base), { headers: { authorization: 'Bearer wrong' } });
      assert.equal(withBadToken.status, 200, 'a wrong token does not matter to /healthz, and /healthz tells nothing of it');
      assert.equal(await withBadToken.text(), 'ok\n');
    });
  });
});
