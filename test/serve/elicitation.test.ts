import assert from 'node:assert/strict';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { run, serveHttp, serveStdio, type StdioServe, texts } from '../support/berry-serve.js';
import { everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

// Needs the host's elicitation wiring (createHost({ onElicitation })) from the interoperability work.
describe('berry-mcp serve: elicitation from a downstream server', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  const open: StdioServe[] = [];

  before(() => {
    tmp = tempDir('berry-serve-elicit-');
    writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
  });
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
    tmp.cleanup();
  });

  const script = `const r = await tools.mcp_call({ server: 'everything', tool: 'trigger-elicitation-request', arguments: {} });
    return r.content.map((b) => b.text).join('\\n');`;

  it('is forwarded to a client that declared elicitation, and its answer goes back down', async () => {
    const serve = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir, capabilities: { capabilities: { elicitation: { form: {} } } } });
    open.push(serve);
    const asked: string[] = [];
    serve.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 } };
    });
    const result = await run(serve.client, script);
    assert.equal(result.isError, undefined, texts(result).join('\n'));
    assert.deepEqual(asked, ['Please provide inputs for the following fields:']);
    const answer = result.structuredContent?.['result'] as string;
    assert.match(answer, /User provided the requested information/);
    assert.match(answer, /Ada Lovelace/);
  });

  it("is forwarded over HTTP on the run request's own stream", async () => {
    const serve = await serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: 'elicit-token' } });
    try {
      const client = await serve.connect('elicit-token', { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Grace Hopper', check: true } }));
      const result = await run(client, script);
      assert.equal(result.isError, undefined, texts(result).join('\n'));
      assert.match(result.structuredContent?.['result'] as string, /Grace Hopper/);
    } finally {
      await serve.close();
    }
  });

  it('is declined for a client without the capability, and the run goes on', async () => {
    const serve = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir });
    open.push(serve);
    const result = await run(serve.client, script);
    assert.equal(result.isError, undefined, texts(result).join('\n'));
    assert.match(result.structuredContent?.['result'] as string, /User declined/);
  });
});
