import assert from 'node:assert/strict';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { run, serveStdio, type StdioServe, texts } from '../support/berry-serve.js';
import { everythingPath, faultServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { CONFIRM_WRITES_SCRIPT } from './confirm-writes-script.js';
import { writeConfig } from '../support/write-config.js';

// serve --confirm-writes: the approval hook asks the run's own client, through elicitation.
describe('berry-mcp serve --confirm-writes', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  const open: StdioServe[] = [];

  before(() => {
    tmp = tempDir('berry-serve-confirm-');
    writeConfig(tmp.dir, {
      fault: { command: process.execPath, args: [faultServerPath] },
      everything: { command: process.execPath, args: [everythingPath] },
    });
  });
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
    tmp.cleanup();
  });

  const script = CONFIRM_WRITES_SCRIPT;

  it('asks the client before each call that may write; a refusal is MCP_CALL_REFUSED and a read-only tool is not asked', async () => {
    const serve = await serveStdio(['--config', 'mcp.json', '--confirm-writes'], {
      cwd: tmp.dir,
      capabilities: { capabilities: { elicitation: { form: {} } } },
    });
    open.push(serve);
    const asked: string[] = [];
    serve.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return asked.length === 1 ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    });
    const result = await run(serve.client, script);
    assert.equal(result.isError, undefined, texts(result).join('\n'));
    const [first, second, sum] = result.structuredContent?.['result'] as string[];
    assert.match(first!, /first/);
    assert.match(second!, /^MCP_CALL_REFUSED: .*user chose decline/);
    assert.match(sum!, /3/);
    assert.equal(asked.length, 2);
    assert.match(asked[0]!, /^Allow fault\/echo\? It may write\.\narguments \(1\):\n {2}"text": "first"\nannotations: none/);
  });

  it('shows an argument put after a padded one, and declines unasked what cannot be shown in full', async () => {
    const serve = await serveStdio(['--config', 'mcp.json', '--confirm-writes'], {
      cwd: tmp.dir,
      capabilities: { capabilities: { elicitation: { form: {} } } },
    });
    open.push(serve);
    const asked: string[] = [];
    serve.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'decline' };
    });
    const result = await run(
      serve.client,
      `const out = [];
      const attempts = [
        { text: 'harmless '.repeat(100), command: 'rm -rf ~' },
        Object.fromEntries([...Array.from({ length: 1000 }, (_, i) => ['k' + i, i]), ['text', 'x'], ['command', 'rm -rf ~']]),
      ];
      for (const args of attempts) {
        try { await tools.mcp_call({ server: 'fault', tool: 'echo', arguments: args }); out.push('sent'); }
        catch (e) { out.push(e.code + ': ' + e.message); }
      }
      return out;`,
    );
    const [padded, many] = result.structuredContent?.['result'] as string[];
    assert.equal(asked.length, 1, 'only the call that can be shown in full is asked');
    assert.match(asked[0]!, /"command": "rm -rf ~"/);
    assert.match(asked[0]!, /"text": "harmless .*"…\(900 chars\)…"/);
    assert.ok(asked[0]!.length <= 4000);
    assert.match(padded!, /^MCP_CALL_REFUSED: .*user chose decline/);
    assert.match(many!, /^MCP_CALL_REFUSED: .*cannot be shown in full for approval \(more than [\d,]+ characters/);
  });

  it('refuses every such call for a client that cannot be asked', async () => {
    const serve = await serveStdio(['--config', 'mcp.json', '--confirm-writes'], { cwd: tmp.dir });
    open.push(serve);
    const result = await run(serve.client, script);
    const [first, second, sum] = result.structuredContent?.['result'] as string[];
    assert.match(first!, /^MCP_CALL_REFUSED: .*did not declare/);
    assert.match(second!, /^MCP_CALL_REFUSED/);
    assert.match(sum!, /3/);
  });

  it('without the flag nothing is asked', async () => {
    const serve = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir, capabilities: { capabilities: { elicitation: { form: {} } } } });
    open.push(serve);
    let asked = 0;
    serve.client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'decline' };
    });
    const result = await run(serve.client, script);
    assert.deepEqual(
      (result.structuredContent?.['result'] as string[]).map((t) => /first|second|3/.test(t)),
      [true, true, true],
    );
    assert.equal(asked, 0);
  });
});
