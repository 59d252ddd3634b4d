import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { serveHttp, type HttpServe } from '../support/berry-serve.js';
import { modernHttp, modernTexts, resultOf, runModern } from '../support/berry-serve-modern.js';
import { everythingPath, faultServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { CONFIRM_WRITES_SCRIPT } from './confirm-writes-script.js';
import { writeConfig } from '../support/write-config.js';

// serve --confirm-writes for a 2026-07-28 client: each question is an input_required round of the same run.
describe('berry-mcp serve --confirm-writes (2026-07-28)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let serve: HttpServe;
  const clients: Client[] = [];

  before(async () => {
    tmp = tempDir('berry-serve-confirm-2026-');
    writeConfig(tmp.dir, {
      fault: { command: process.execPath, args: [faultServerPath] },
      everything: { command: process.execPath, args: [everythingPath] },
    });
    serve = await serveHttp(['--config', 'mcp.json', '--confirm-writes'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: 'cw' } });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await serve.close();
    tmp.cleanup();
  });

  const script = CONFIRM_WRITES_SCRIPT;

  it('asks before each call that may write, one round per question; a refusal is MCP_CALL_REFUSED', async () => {
    const client = await modernHttp(serve.url, 'cw', { capabilities: { elicitation: { form: {} } } });
    clients.push(client);
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return asked.length === 1 ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    });
    const result = await runModern(client, script);
    assert.equal(result.isError, undefined, modernTexts(result).join('\n'));
    const [first, second, sum] = resultOf(result) as string[];
    assert.match(first!, /first/);
    assert.match(second!, /^MCP_CALL_REFUSED: .*user chose decline/);
    assert.match(sum!, /3/);
    assert.equal(asked.length, 2);
    assert.match(asked[0]!, /^Allow fault\/echo\? It may write\.\narguments \(1\):\n {2}"text": "first"/);
  });

  it('refuses every such call, unasked, for a client whose requests declare no elicitation', async () => {
    const client = await modernHttp(serve.url, 'cw');
    clients.push(client);
    const result = await runModern(client, script);
    const [first, second] = resultOf(result) as string[];
    assert.match(first!, /^MCP_CALL_REFUSED: .*did not declare/);
    assert.match(second!, /^MCP_CALL_REFUSED/);
  });
});
