import assert from 'node:assert/strict';
import { everythingPath, writeConfig } from '../fixtures/servers.js';
import { tempDir } from '../bindings/helpers.js';
import { run, serveHttp, serveStdio, texts, type HttpServe, type StdioServe } from './helpers.js';

const TOKEN = 'serve-token-5f0c1e9a7b3d';
const PLAIN = { name: 'BERRY_TEST_INHERITED', value: 'plain-inherited-value' } as const;
// server-everything's get-env returns its whole environment as JSON text.
const GET_ENV = `const r = await tools.mcp_call({ server: 'everything', tool: 'get-env', arguments: {} });
  return JSON.parse(r.content[0].text);`;

describe('berry-mcp serve: its own secrets never reach a server', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  const open: (HttpServe | StdioServe)[] = [];

  before(() => {
    tmp = tempDir('berry-serve-secrets-');
    writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
  });
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
    tmp.cleanup();
  });

  it('serve --http: the server gets the inherited environment without BERRY_SERVE_TOKEN', async () => {
    const serve = await serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN, [PLAIN.name]: PLAIN.value } });
    open.push(serve);
    const client = await serve.connect(TOKEN);
    const result = await run(client, GET_ENV);
    assert.equal(result.isError, undefined, texts(result).join('\n'));
    const env = result.structuredContent?.['result'] as Record<string, string>;
    assert.equal(env[PLAIN.name], PLAIN.value);
    assert.ok(!('BERRY_SERVE_TOKEN' in env), 'the token was inherited');
    assert.ok(!('BERRY_MCP_PARENT_FD' in env));
    assert.ok(!JSON.stringify(env).includes(TOKEN));
  });

  it('serve on stdio: a token in its environment is not passed on either', async () => {
    const serve = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN, [PLAIN.name]: PLAIN.value } });
    open.push(serve);
    const result = await run(serve.client, GET_ENV);
    const env = result.structuredContent?.['result'] as Record<string, string>;
    assert.equal(env[PLAIN.name], PLAIN.value);
    assert.ok(!JSON.stringify(env).includes(TOKEN));
  });
});
