// Both protocol eras against v2 SDK servers (test/fixtures/v2-server.mjs): a modern-only server
// (legacy: 'reject') over stdio and HTTP for every operation, the era shown in list, pinned
// revisions, and the reference server (v1, 2025 only) still found by the fallback.
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { isBerryError } from '../../src/common/errors.js';
import type { ElicitationParams, LogEvent } from '../../src/index.js';
import { startV2Http, type PortFixture } from '../support/fixture-servers.js';
import { everythingPath, faultServerPath, v2ServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor } from '../support/wait.js';

const node = process.execPath;
const text = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text;

describe('protocol eras: a modern-only v2 server over stdio and HTTP', () => {
  let http: PortFixture;
  const asked: ElicitationParams[] = [];
  const logs: LogEvent[] = [];
  let cancelLog = '';
  const t = useTestHost(
    async (dir) => {
      cancelLog = path.join(dir, 'cancel.log');
      http = await startV2Http(['--modern-only'], { FIXTURE_CANCEL_LOG: cancelLog });
      return {
        stdio: { command: node, args: [v2ServerPath, '--modern-only'], env: { FIXTURE_CANCEL_LOG: cancelLog } },
        http: { url: http.url },
        both: { command: node, args: [v2ServerPath] },
        pinned: { command: node, args: [v2ServerPath], protocol: '2025-11-25' },
        refused: { command: node, args: [v2ServerPath, '--modern-only'], protocol: '2025-11-25' },
        everything: { command: node, args: [everythingPath] },
        dies: { command: node, args: [faultServerPath, '--exit-on-discover'] },
      };
    },
    {
      options: {
        onElicitation: async (params) => {
          asked.push(params);
          return { action: 'accept', content: { name: 'Bo' } };
        },
        onLog: (event) => logs.push(event),
      },
    },
  );
  after(async () => http?.close());

  it('list shows the revision each server speaks, found per server', async () => {
    const { servers } = await t.host.list({});
    const protocol = Object.fromEntries(servers.map((s) => [s.name, s.status === 'connected' ? s.protocol : s.status]));
    // `dies` exits on the probe: it is started again and spoken to in 2025-11-25.
    assert.deepEqual(protocol, {
      stdio: '2026-07-28',
      http: '2026-07-28',
      both: '2026-07-28',
      pinned: '2025-11-25',
      refused: 'error',
      everything: '2025-11-25',
      dies: '2025-11-25',
    });
    const refused = servers.find((s) => s.name === 'refused');
    assert.ok(refused?.status === 'error' && refused.error.code === 'MCP_PROTOCOL_VERSION_UNSUPPORTED', JSON.stringify(refused));
    assert.match(refused.error.message, /speaks 2026-07-28; berry-mcp offered 2025-11-25 \(this entry pins "protocol": "2025-11-25"/);
    assert.ok(logs.some((e) => e.server === 'stdio' && e.kind === 'initialized' && /protocol 2026-07-28, stateless, by server\/discover/.test(e.message)));
    assert.ok(
      logs.some((e) => e.server === 'dies' && /exited on the server\/discover probe/.test(e.message)),
      'the probe killed it once',
    );
  });

  for (const server of ['stdio', 'http']) {
    describe(`over ${server}`, () => {
      it('describes, calls, reads and gets a prompt', async () => {
        const described = await t.host.describe({ server, tool: 'echo' });
        assert.ok('name' in described && described.name === 'echo');
        assert.equal(text(await t.host.call({ server, tool: 'echo', arguments: { text: 'hi' } })), 'hi');
        const read = await t.host.read({ server, uri: 'fixture://one' });
        assert.deepEqual(
          read.contents.map((c) => ('text' in c ? c.text : '')),
          ['contents of fixture://one'],
        );
        const prompt = await t.host.prompt({ server, name: 'greet', arguments: { who: 'x' } });
        assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'greet x' });
      });

      it('answers an input_required elicitation through onElicitation and echoes requestState', async () => {
        const before = asked.length;
        const answer = JSON.parse(text(await t.host.call({ server, tool: 'elicit', arguments: {} }))) as unknown;
        assert.deepEqual(answer, { answer: { kind: 'elicit', action: 'accept', content: { name: 'Bo' } }, state: 'state-1' });
        assert.equal(asked.length, before + 1);
        assert.equal(asked.at(-1)?.message, 'Your name?');
      });

      it('forwards progress, and cancels a call', async () => {
        const steps: number[] = [];
        await t.host.call({ server, tool: 'progress', arguments: { steps: 3 } }, { onProgress: (e) => steps.push(e.progress) });
        assert.deepEqual(steps, [1, 2, 3]);
        const ac = new AbortController();
        const call = t.host.call({ server, tool: 'sleep', arguments: { ms: 5000 } }, { signal: ac.signal });
        setTimeout(() => ac.abort(), 200);
        const started = Date.now();
        await assert.rejects(call, (error: unknown) => isBerryError(error) && error.code === 'MCP_CANCELLED');
        assert.ok(Date.now() - started < 2000);
        if (server === 'stdio') {
          await waitFor(() => existsSync(cancelLog) && readFileSync(cancelLog, 'utf8').includes('cancelled'), 5000, 'the server saw the cancel');
        }
      });

      it('fails a sampling request clearly, naming what the server wanted', async () => {
        await assert.rejects(t.host.call({ server, tool: 'sample', arguments: {} }), (error: unknown) => {
          assert.ok(isBerryError(error) && (error.code === 'MCP_CAPABILITY_MISSING' || error.code === 'MCP_INPUT_UNSUPPORTED'), String(error));
          assert.match(error.message, /sampling/);
          return true;
        });
      });
    });
  }

  it('HTTP: sends Mcp-Method, Mcp-Name and Mcp-Param-* (Base64 when unsafe), and leaves out a tool with invalid annotations', async () => {
    const seen = JSON.parse(text(await t.host.call({ server: 'http', tool: 'region', arguments: { region: 'eu-west é', note: null } }))) as Record<
      string,
      unknown
    >;
    assert.deepEqual(seen, { region: 'eu-west é', header: `=?base64?${Buffer.from('eu-west é').toString('base64')}?=`, method: 'tools/call', name: 'region' });
    const plain = JSON.parse(text(await t.host.call({ server: 'http', tool: 'region', arguments: { region: 'us' } }))) as Record<string, unknown>;
    assert.equal(plain['header'], 'us');
    const { servers } = await t.host.list({ server: 'http' });
    const listed = servers[0];
    assert.ok(listed?.status === 'connected');
    assert.ok(!listed.tools.some((tool) => tool.name === 'bad_header'));
    assert.ok(
      listed.warnings?.some((w) => /tool "bad_header" was left out: its x-mcp-header annotations are invalid/.test(w)),
      JSON.stringify(listed.warnings),
    );
  });

  it('HTTP: tools/list_changed arrives over subscriptions/listen', async () => {
    await t.host.call({ server: 'http', tool: 'add_tool', arguments: { name: 'newt' } });
    const deadline = Date.now() + 5000;
    for (;;) {
      const { servers } = await t.host.list({ server: 'http' });
      if (servers[0]?.status === 'connected' && servers[0].tools.some((tool) => tool.name === 'newt')) break;
      assert.ok(Date.now() < deadline, 'the new tool in the list within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
