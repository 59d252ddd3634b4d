import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMcpHost, type LogEvent } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry, type HttpFixture, type PortFixture, startEverythingHttp, startHttpFixture } from '../support/fixture-servers.js';
import { closedPort } from '../support/network.js';
import { tempDir } from '../support/temp-dir.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const CANARY = 'canary-Zx81-secret-value';

describe('Streamable HTTP servers', function () {
  this.timeout(60_000);
  let fixture: HttpFixture;
  let everything: PortFixture;
  let cancelLog: string;
  let eventLog: string;
  const events: LogEvent[] = [];

  const t = useTestHost(
    async (dir) => {
      cancelLog = join(dir, 'cancel.log');
      eventLog = join(dir, 'events.log');
      [fixture, everything] = await Promise.all([startHttpFixture([], { FIXTURE_CANCEL_LOG: cancelLog, FIXTURE_EVENT_LOG: eventLog }), startEverythingHttp()]);
      process.env['BERRY_HTTP_CANARY'] = CANARY;
      const port = await closedPort();
      return {
        fixture: { url: fixture.url, headers: { Authorization: 'Bearer ${BERRY_HTTP_CANARY}', 'X-Plain': 'visible' } },
        everything: { url: everything.url },
        redirect: { url: `${fixture.base}/redirect-mcp` },
        redirectget: { url: `${fixture.base}/redirect-get` },
        slow: { url: fixture.url, timeout: 1 },
        refused: { url: `http://127.0.0.1:${port}/mcp` },
      };
    },
    { create: createMcpHost, options: { configPath: 'mcp.json', onLog: (e) => events.push(e) } },
  );

  after(async () => {
    delete process.env['BERRY_HTTP_CANARY'];
    await Promise.all([fixture.close(), everything.close()]);
  });

  it('calls server-everything over Streamable HTTP', async () => {
    const result = await t.host.call({ server: 'everything', tool: 'echo', arguments: { message: 'over http' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: over http' }]);
    const listed = await t.host.list({ server: 'everything' });
    const server = listed.servers[0]!;
    assert.ok(server.status === 'connected' && server.transport === 'http' && server.tools.length > 5);
  });

  it('sends the configured headers with ${VAR} expanded from the machine environment', async () => {
    const result = await t.host.call({ server: 'fixture', tool: 'whoami', arguments: {} });
    const seen = JSON.parse((result.content[0] as { text: string }).text) as { headers: Record<string, string> };
    // The fixture hands the header back; a configured secret in a result is masked, so the header
    // arrived as configured exactly when it comes back as the mask.
    assert.equal(seen.headers['authorization'], '***');
    assert.ok(!JSON.stringify(result).includes(CANARY));
    assert.equal(seen.headers['x-plain'], 'visible');
  });

  it('refuses redirects, on POST and on the GET event stream', async () => {
    await assert.rejects(t.host.call({ server: 'redirect', tool: 'echo', arguments: { text: 'x' } }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_CONNECT_FAILED', String(error));
      assert.match(error.message, /redirect/);
      return true;
    });
    const before = (await fixture.stats()).paths['/redirect-get'] ?? 0;
    // POSTs work on /redirect-get; only its GET stream redirects, and that redirect must not be followed.
    await t.host.call({ server: 'redirectget', tool: 'echo', arguments: { text: 'x' } }).catch(() => undefined);
    const stats = await fixture.stats();
    assert.ok((stats.paths['/redirect-get'] ?? 0) > before);
    assert.equal(stats.paths['/mcp'] !== undefined, true);
    assert.ok(stats.redirects >= 2, 'both endpoints answered with a redirect');
  });

  it('an unknown session (404) fails that call without replay; the next operation re-initializes', async () => {
    await t.host.call({ server: 'fixture', tool: 'echo', arguments: { text: 'warm' } });
    const { requests: before } = await fixture.stats();
    await t.host.call({ server: 'fixture', tool: 'expire_sessions', arguments: {} });
    await assert.rejects(t.host.call({ server: 'fixture', tool: 'echo', arguments: { text: 'lost' } }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_SESSION_EXPIRED', String(error));
      return true;
    });
    const after = await t.host.call({ server: 'fixture', tool: 'echo', arguments: { text: 'again' } });
    assert.equal((after.content[0] as { text: string }).text, 'again');
    const { requests } = await fixture.stats();
    // expire + failed echo + server/discover (a lost session forgets the era verdict) + initialize +
    // initialized + tools/list (the name check on the new session) + echo (+ an optional GET stream)
    assert.ok(requests - before >= 7 && requests - before <= 9, `requests: ${requests - before}`);
  });

  it('cancellation reaches the HTTP server', async () => {
    const ac = new AbortController();
    writeFileSync(eventLog, '');
    const call = t.host.call({ server: 'fixture', tool: 'sleep', arguments: { ms: 10_000 } }, { signal: ac.signal });
    await waitForEvent(eventLog, 'started sleep');
    ac.abort();
    await assert.rejects(call, {
      code: 'MCP_CANCELLED',
    });
    await waitFor(() => existsSync(cancelLog) && /cancelled/.test(readFileSync(cancelLog, 'utf8')), 5000, 'cancel log');
  });

  it('progress over HTTP reaches the callback and resets the timeout', async () => {
    const seen: number[] = [];
    await t.host.call({ server: 'slow', tool: 'progress', arguments: { steps: 4, intervalMs: 400 } }, { onProgress: (p) => seen.push(p.progress) });
    assert.deepEqual(seen, [1, 2, 3, 4]);
  });

  it('an unreachable server is listed with a connect error', async () => {
    const listed = await t.host.list({ server: 'refused' });
    const server = listed.servers[0]!;
    assert.ok(server.status === 'error' && server.error.code === 'MCP_CONNECT_FAILED');
    assert.match(server.error.message, /ECONNREFUSED|connect/);
  });

  it('terminates its session on close', async () => {
    const local = createMcpHost({ cwd: t.dir, configPath: 'mcp.json' });
    await local.call({ server: 'fixture', tool: 'echo', arguments: { text: 'x' } });
    const { deletes } = await fixture.stats();
    await local.close();
    assert.equal((await fixture.stats()).deletes, deletes + 1);
  });
});

describe('secrets', function () {
  this.timeout(30_000);

  it('a secret canary in env and headers appears in no error message or log', async () => {
    const tmp = tempDir();
    const events: LogEvent[] = [];
    process.env['BERRY_CANARY'] = CANARY;
    // The fault server prints its TOKEN to stderr before crashing: the tail must come back redacted.
    const echoToken = faultEntry([], { env: { TOKEN: '${BERRY_CANARY}' } });
    writeConfig(tmp.dir, {
      leaky: {
        command: process.execPath,
        // The secret arrives in two stderr chunks: redaction must still see it whole.
        args: [
          '-e',
          'const t = process.env.TOKEN; process.stderr.write("token is " + t.slice(0, 9)); setTimeout(() => { process.stderr.write(t.slice(9) + "\\n"); process.exit(4); }, 100);',
        ],
        env: { TOKEN: '${BERRY_CANARY}' },
      },
      crashy: { ...echoToken, env: { TOKEN: '${BERRY_CANARY}', LITERAL: `literal-${CANARY}` } },
      web: { url: 'http://127.0.0.1:9/mcp?key=${BERRY_CANARY}', headers: { Authorization: 'Bearer ${BERRY_CANARY}' } },
      missing: { command: 'x', env: { A: '${BERRY_UNSET_ONE}', B: '${BERRY_UNSET_TWO}' } },
    });
    const port = await closedPort();
    const config = JSON.parse(readFileSync(join(tmp.dir, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { url?: string }> };
    config.mcpServers['web']!.url = `http://127.0.0.1:${port}/mcp?key=\${BERRY_CANARY}`;
    writeConfig(tmp.dir, config.mcpServers);
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json', onLog: (e) => events.push(e) });
    const texts: string[] = [];
    try {
      const listed = await host.list({});
      texts.push(JSON.stringify(listed));
      const leaky = listed.servers.find((s) => s.name === 'leaky')!;
      assert.ok(leaky.status === 'error');
      assert.match(leaky.error.message, /token is \*\*\*/);
      const missing = listed.servers.find((s) => s.name === 'missing')!;
      assert.ok(missing.status === 'error' && missing.error.code === 'MCP_ENV_MISSING');
      assert.match(missing.error.message, /BERRY_UNSET_ONE/);
      assert.match(missing.error.message, /BERRY_UNSET_TWO/);
      for (const request of [
        { server: 'leaky', tool: 'x' },
        { server: 'web', tool: 'x' },
        { server: 'crashy', tool: 'crash' },
      ]) {
        const error = await host.call(request).then(
          () => assert.fail('expected a rejection'),
          (e: Error) => e,
        );
        texts.push(error.message, String(error.stack), JSON.stringify(error));
      }
    } finally {
      await host.close();
      delete process.env['BERRY_CANARY'];
      tmp.cleanup();
    }
    texts.push(...events.map((e) => JSON.stringify(e)));
    const leakyStderr = events.filter((e) => e.server === 'leaky' && e.kind === 'stderr').map((e) => e.message);
    texts.push(leakyStderr.join(''));
    assert.ok(leakyStderr.join('').includes('token is ***'), leakyStderr.join('|'));
    assert.ok(events.length > 5);
    for (const text of texts) assert.ok(!text.includes(CANARY), `secret leaked in: ${text.slice(0, 300)}`);
  });
});
