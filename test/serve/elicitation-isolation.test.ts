import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpServe, run, serveHttp, texts } from '../support/berry-serve.js';
import { type PortFixture, startEverythingHttp } from '../support/fixture-servers.js';
import { everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

/**
 * Two clients of one `serve --http`: A declared elicitation, B did not. A downstream server's
 * elicitation must reach only the client whose run caused it, and only if it can answer.
 */
describe('berry-mcp serve: an elicitation reaches only the client whose run caused it', function () {
  this.timeout(90_000);
  let tmp: ReturnType<typeof tempDir>;
  let remote: PortFixture;
  let serve: HttpServe;
  let a: Client;
  let b: Client;
  const askedA: string[] = [];

  before(async () => {
    tmp = tempDir('berry-serve-elicit-iso-');
    remote = await startEverythingHttp();
    writeConfig(tmp.dir, {
      local: { command: process.execPath, args: [everythingPath] },
      remote: { url: `${remote.base}/mcp` },
    });
    serve = await serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: 'iso-token' } });
    a = await serve.connect('iso-token', { capabilities: { elicitation: { form: {} } } });
    a.setRequestHandler(ElicitRequestSchema, async (request) => {
      askedA.push(request.params.message);
      return { action: 'accept', content: { name: 'A user', check: true } };
    });
    b = await serve.connect('iso-token');
  });
  after(async () => {
    await serve?.close();
    await remote?.close();
    tmp?.cleanup();
  });
  beforeEach(() => {
    askedA.length = 0;
  });

  const elicit = (server: string): string => `const r = await tools.mcp_call({ server: '${server}', tool: 'trigger-elicitation-request', arguments: {} });
    return r.content.map((b) => b.text).join('\\n');`;

  /** Starts a run whose call on `server` stays in flight about 4 s; resolves once it is (its first progress). */
  async function longRun(client: Client, server: string): Promise<{ done: Promise<CallToolResult> }> {
    let inFlight!: () => void;
    const started = new Promise<void>((r) => (inFlight = r));
    const done = run(
      client,
      `await tools.mcp_call({ server: '${server}', tool: 'trigger-long-running-operation', arguments: { duration: 4, steps: 8 } }); return 'long done';`,
      {
        onprogress: () => inFlight(),
      },
    );
    await Promise.race([started, done]);
    return { done };
  }

  function answer(result: CallToolResult): string {
    assert.equal(result.isError, undefined, texts(result).join('\n'));
    return result.structuredContent?.['result'] as string;
  }

  it("declines B's downstream elicitation while A has a run in flight: A's user never sees it", async () => {
    const long = await longRun(a, 'remote');
    assert.match(answer(await run(b, elicit('local'))), /declined/i);
    assert.deepEqual(askedA, []);
    assert.equal(answer(await long.done), 'long done');
  });

  it("over an HTTP connection shared by both runs, each elicitation is attributed to its own run's call", async () => {
    const long = await longRun(b, 'remote');
    const mine = answer(await run(a, elicit('remote')));
    assert.match(mine, /A user/);
    assert.deepEqual(askedA, ['Please provide inputs for the following fields:']);
    await long.done;
    askedA.length = 0;
    const longA = await longRun(a, 'remote');
    assert.match(answer(await run(b, elicit('remote'))), /declined/i);
    assert.deepEqual(askedA, []);
    await longA.done;
  });

  it('on a stdio connection with calls of both clients in flight, an elicitation is declined, never cross-delivered', async () => {
    const longA = await longRun(a, 'local');
    assert.match(answer(await run(b, elicit('local'))), /declined/i);
    assert.deepEqual(askedA, []);
    await longA.done;
    const longB = await longRun(b, 'local');
    // A's own request cannot be told from B's on a shared stdio pipe: declined rather than guessed.
    assert.match(answer(await run(a, elicit('local'))), /declined/i);
    assert.deepEqual(askedA, []);
    await longB.done;
    // Alone on the connection, A's run is asked.
    assert.match(answer(await run(a, elicit('local'))), /A user/);
    assert.equal(askedA.length, 1);
  });
});
