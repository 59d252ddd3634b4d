import assert from 'node:assert/strict';
import { type HttpServe, run, serveHttp, serveStdio, type StdioServe, texts } from '../support/berry-serve.js';
import { echoServerPath, everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

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

// Another entry's expanded secret is in the environment every server inherits: whatever a server
// hands back is masked before the script sees it, in every place and rendering.
describe('berry-mcp serve: secrets in what servers return are masked before the script sees them', function () {
  this.timeout(60_000);
  const OTHER = 'oth3r-Secret/4d1b+x';
  const OWN = 'own-token-9c2f4e7a';
  let tmp: ReturnType<typeof tempDir>;
  let serve: StdioServe;

  before(async () => {
    tmp = tempDir('berry-serve-masked-');
    writeConfig(tmp.dir, {
      everything: { command: process.execPath, args: [everythingPath], env: { OWN_TOKEN: OWN, DEBUG_FLAG: 'true' } },
      echo: {
        command: process.execPath,
        args: [echoServerPath],
        env: { ECHO_INSTRUCTIONS: 'Sign with ${BERRY_TEST_OTHER}.', ECHO_DESCRIPTION: '${BERRY_TEST_OTHER}' },
      },
      // Never started: its header alone makes the variable a secret of this config.
      api: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${BERRY_TEST_OTHER}' } },
    });
    serve = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_TEST_OTHER: OTHER, [PLAIN.name]: PLAIN.value } });
  });
  after(async () => {
    await serve?.close();
    tmp.cleanup();
  });

  it('masks them in tool results, resources, prompts, descriptions and lists; plain values stay', async () => {
    const S = JSON.stringify(OTHER);
    const result = await run(
      serve.client,
      `const S = ${S};
      const env = JSON.parse((await tools.mcp_call({ server: 'everything', tool: 'get-env', arguments: {} })).content[0].text);
      const echo = (text) => tools.mcp_call({ server: 'echo', tool: 'echo_all', arguments: { text } });
      return {
        env: { other: env.BERRY_TEST_OTHER, own: env.OWN_TOKEN, flag: env.DEBUG_FLAG, plain: env.${PLAIN.name} },
        plain: await echo('a ' + S + ' b'),
        encoded: (await echo('?k=' + encodeURIComponent(S))).content[0].text,
        json: (await echo(JSON.stringify({ k: S }))).content[0].text,
        upper: (await echo(S.toUpperCase())).content[0].text,
        resource: await tools.mcp_read({ server: 'echo', uri: 'echo://' + encodeURIComponent(S) }),
        prompt: await tools.mcp_prompt({ server: 'echo', name: 'echo', arguments: { text: S } }),
        describe: await tools.mcp_describe({ server: 'echo' }),
        tool: await tools.mcp_describe({ server: 'echo', tool: 'echo_all' }),
        list: await tools.mcp_list({ server: 'echo' }),
      };`,
    );
    assert.equal(result.isError, undefined, texts(result).join('\n'));
    // biome-ignore lint/suspicious/noExplicitAny: the echo fixture's nested answers, read as they came
    const out = result.structuredContent?.['result'] as Record<string, any>;
    const all = JSON.stringify(out);
    for (const form of [OTHER, encodeURIComponent(OTHER), OTHER.toUpperCase(), JSON.stringify(OTHER).slice(1, -1), OWN]) {
      assert.ok(!all.includes(form), `${form} reached the script: ${all.slice(0, 2000)}`);
    }
    assert.deepEqual(out['env'], { other: '***', own: '***', flag: 'true', plain: PLAIN.value });
    assert.equal(out['plain'].content[0].text, 'a *** b');
    assert.equal(out['plain'].content[1].resource.text, 'a *** b');
    assert.deepEqual(out['plain'].structuredContent, { echoed: 'a *** b', nested: [{ 'a *** b': 'a *** b' }] });
    assert.equal(out['encoded'], '?k=***');
    assert.equal(out['json'], '{"k":"***"}');
    assert.equal(out['upper'], '***');
    assert.equal(out['resource'].contents[0].text, '***');
    assert.equal(out['resource'].contents[0].uri, 'echo://***');
    assert.equal(out['prompt'].messages[0].content.text, '***');
    assert.match(out['describe'].instructions, /^\*\*\*$/);
    assert.match(all, /Echoes text everywhere\. \*\*\*/);
  });
});
