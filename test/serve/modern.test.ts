import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import { run as runLegacy, serveHttp, type HttpServe } from '../support/berry-serve.js';
import { MODERN, modernHttp, modernStdio, modernTexts, resultOf, runModern } from '../support/berry-serve-modern.js';
import { everythingAndFault } from '../support/fixture-servers.js';
import type { tempDir } from '../support/temp-dir.js';
import { waitFor, waitForEvent } from '../support/wait.js';

const TOKEN = 'modern-serve-token';
const ELICIT = `const r = await tools.mcp_call({ server: 'everything', tool: 'trigger-elicitation-request', arguments: {} });
  return r.content.map((b) => b.text).join('\\n');`;

// serve in the 2026-07-28 era, with a real v2 client (versionNegotiation pinned to 2026-07-28), over both transports.
describe('berry-mcp serve: the 2026-07-28 protocol (v2 client)', function () {
  this.timeout(90_000);
  let tmp: ReturnType<typeof tempDir>;
  let cancelLog: string;
  let eventLog: string;
  let http: HttpServe;
  const clients: Client[] = [];

  before(async () => {
    ({ tmp, cancelLog, eventLog } = everythingAndFault('berry-serve-modern-'));
    http = await serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN } });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await http.close();
    tmp.cleanup();
  });

  const transports: Record<string, (capabilities?: Record<string, unknown>) => Promise<Client>> = {
    stdio: async (capabilities) => {
      const serve = await modernStdio(['--config', 'mcp.json'], { cwd: tmp.dir, ...(capabilities ? { capabilities } : {}) });
      clients.push(serve.client);
      return serve.client;
    },
    http: async (capabilities) => {
      const client = await modernHttp(http.url, TOKEN, capabilities ? { capabilities } : {});
      clients.push(client);
      return client;
    },
  };

  for (const [name, connect] of Object.entries(transports)) {
    describe(`over ${name}`, () => {
      it('negotiates 2026-07-28 through server/discover and runs a script that calls a server', async () => {
        const client = await connect();
        assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
        const discovered = await client.discover();
        assert.ok(discovered.supportedVersions.includes(MODERN));
        assert.ok(discovered.capabilities.tools);
        const tools = await client.listTools();
        assert.deepEqual(
          tools.tools.map((t) => t.name),
          ['run'],
        );
        const result = await runModern(
          client,
          "return (await tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'hi' } })).content[0].text",
        );
        assert.equal(result.isError, undefined, modernTexts(result).join('\n'));
        assert.equal(resultOf(result), 'Echo: hi');
      });

      it("forwards a downstream elicitation as input_required, answered by the client's handler on the retry", async () => {
        const client = await connect({ elicitation: { form: {} } });
        const asked: string[] = [];
        client.setRequestHandler('elicitation/create', async (request) => {
          asked.push(request.params.message);
          return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 } };
        });
        const result = await runModern(client, ELICIT);
        assert.equal(result.isError, undefined, modernTexts(result).join('\n'));
        assert.deepEqual(asked, ['Please provide inputs for the following fields:']);
        assert.match(resultOf(result) as string, /Ada Lovelace/);
      });

      it('declines the elicitation for a client that did not declare it', async () => {
        const client = await connect();
        const result = await runModern(client, ELICIT);
        assert.match(resultOf(result) as string, /User declined/);
      });

      it('sends progress with the request token, counting up, before the result', async () => {
        const client = await connect();
        const seen: { progress: number; message?: string }[] = [];
        const result = await runModern(
          client,
          `text('starting');
           await tools.mcp_call({ server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } });
           text('finished');`,
          { onprogress: (p) => seen.push(p) },
        );
        assert.equal(result.isError, undefined, modernTexts(result).join('\n'));
        assert.equal(seen[0]?.message, 'starting');
        assert.ok(seen.length >= 3, JSON.stringify(seen));
        for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress > seen[i - 1]!.progress, 'progress is monotonic');
      });

      it(name === 'http' ? 'cancels the run when the client closes the request stream' : 'cancels the run on notifications/cancelled', async () => {
        const client = await connect();
        writeFileSync(eventLog, '');
        writeFileSync(cancelLog, '');
        const controller = new AbortController();
        const pending = runModern(client, "await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 30000 } });", { signal: controller.signal });
        pending.catch(() => {});
        await waitForEvent(eventLog, 'started sleep');
        controller.abort('user gave up');
        await assert.rejects(pending);
        await waitFor(() => readFileSync(cancelLog, 'utf8').includes('cancelled'), 10_000, 'the inner call to be cancelled on its server');
        assert.equal(resultOf(await runModern(client, 'return 3')), 3);
      });
    });
  }

  it("a v2 client in 'auto' negotiation picks 2026-07-28 over stdio (its server/discover probe) and over HTTP", async () => {
    const stdio = await modernStdio(['--config', 'mcp.json'], { cwd: tmp.dir, negotiation: 'auto' });
    clients.push(stdio.client);
    const overHttp = await modernHttp(http.url, TOKEN, { negotiation: 'auto' });
    clients.push(overHttp);
    for (const client of [stdio.client, overHttp]) {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.equal(resultOf(await runModern(client, 'return "auto"')), 'auto');
    }
  });

  it('serves a 2025 client (a session) and a 2026 client (stateless) on one serve --http at once', async () => {
    const legacy = await http.connect(TOKEN);
    const modern = await transports['http']!();
    const slow = "await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 300 } }); return 'slept';";
    const [a, b] = await Promise.all([runLegacy(legacy, slow), runModern(modern, slow)]);
    assert.equal(resultOf(a), 'slept');
    assert.equal(resultOf(b), 'slept');
    assert.equal(legacy.getServerVersion()?.name, 'berry-mcp');
  });
});
