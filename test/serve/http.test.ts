import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type HttpServe, run, serveHttp, texts } from '../support/berry-serve.js';
import { everythingAndFault } from '../support/fixture-servers.js';
import { everythingPath } from '../support/paths.js';
import { processAlive } from '../support/processes.js';
import type { tempDir } from '../support/temp-dir.js';
import { waitFor, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const TOKEN = 'test-token-0123456789';
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw POST of an initialize request: status and body. */
function post(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
        // An accepted initialize answers on an SSE stream that stays open: the head is enough.
        if (res.statusCode === 200) {
          res.destroy();
          resolve({ status: 200, body: '' });
        }
      },
    );
    req.on('error', reject);
    req.end(INIT);
  });
}

describe('berry-mcp serve --http', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let cancelLog: string;
  let eventLog: string;
  let serve: HttpServe;

  before(async () => {
    ({ tmp, cancelLog, eventLog } = everythingAndFault('berry-serve-http-'));
    serve = await serveHttp(['--config', 'mcp.json', '--allow-origin', 'https://agent.example'], {
      cwd: tmp.dir,
      env: { BERRY_SERVE_TOKEN: TOKEN },
    });
  });
  after(async () => {
    await serve?.close();
    tmp.cleanup();
  });

  it('listens on 127.0.0.1 at /mcp and never prints a token it was given', () => {
    assert.match(serve.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(!serve.stderr().includes(TOKEN));
  });

  it('answers 401 without a token or with a wrong one, 403 for a foreign Origin', async () => {
    assert.equal((await post(serve.url, {})).status, 401);
    assert.equal((await post(serve.url, { authorization: `Bearer ${TOKEN}x` })).status, 401);
    assert.equal((await post(serve.url, { authorization: TOKEN })).status, 401);
    const foreign = await post(serve.url, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body, /--allow-origin/);
    assert.equal((await post(serve.url, { authorization: `Bearer ${TOKEN}`, origin: 'http://localhost:3000' })).status, 200);
    assert.equal((await post(serve.url, { authorization: `Bearer ${TOKEN}`, origin: 'https://agent.example' })).status, 200);
    assert.equal((await post(serve.url.replace('/mcp', '/other'), { authorization: `Bearer ${TOKEN}` })).status, 404);
  });

  it('the SDK client with a wrong token cannot connect, so cannot run code', async () => {
    await assert.rejects(serve.connect('wrong'), /401|Unauthorized/);
  });

  it('lists run and fans out 16 calls for a client with the token', async () => {
    const client = await serve.connect(TOKEN);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['run'],
    );
    assert.match(tools[0]!.description!, /\n- everything \(\d+\): echo/);
    const result = await run(
      client,
      `const r = await Promise.all(Array.from({ length: 16 }, (_, i) => tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: String(i) } })));
       text(r.map((x) => x.content[0].text).join(','));`,
    );
    assert.equal(texts(result)[0], Array.from({ length: 16 }, (_, i) => `Echo: ${i}`).join(','));
  });

  it('runs two clients at once and reports a failing script as isError', async () => {
    const [a, b] = await Promise.all([serve.connect(TOKEN), serve.connect(TOKEN)]);
    const [ra, rb] = await Promise.all([run(a, 'return "a"'), run(b, 'x()')]);
    assert.equal(ra.structuredContent?.['result'], 'a');
    assert.equal(rb.isError, true);
    assert.match(texts(rb).at(-1)!, /^ReferenceError \[SCRIPT_ERROR\] at line 1, column 1: x is not defined/);
  });

  it('sends progress on the run request and cancels the inner call when the client cancels', async () => {
    const client = await serve.connect(TOKEN);
    const seen: string[] = [];
    await run(client, "text('one'); text('two'); return 1", { onprogress: (p) => seen.push(p.message ?? '') });
    assert.deepEqual(seen, ['one', 'two']);
    writeFileSync(cancelLog, '');
    writeFileSync(eventLog, '');
    const controller = new AbortController();
    const pending = run(client, "await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 30000 } });", { signal: controller.signal });
    pending.catch(() => {});
    await waitForEvent(eventLog, 'started sleep');
    controller.abort('enough');
    await waitFor(() => readFileSync(cancelLog, 'utf8').includes('cancelled'), 10_000, 'the inner call to be cancelled');
  });

  it('a client that drops the connection mid-run has its run aborted and the inner call cancelled', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` };
    const init = await fetch(serve.url, { method: 'POST', headers, body: INIT });
    const session = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await fetch(serve.url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    writeFileSync(cancelLog, '');
    writeFileSync(eventLog, '');
    const dropped = new AbortController();
    const call = fetch(serve.url, {
      method: 'POST',
      headers: withSession,
      signal: dropped.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'run', arguments: { code: "await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 30000 } })" } },
      }),
    });
    const response = await call;
    assert.equal(response.status, 200);
    await waitForEvent(eventLog, 'started sleep');
    dropped.abort();
    await waitFor(() => readFileSync(cancelLog, 'utf8').includes('cancelled'), 10_000, 'the inner call to be cancelled');
  });

  it('sends tools/list_changed on the session stream when mcp.json gains a server', async () => {
    const client = await serve.connect(TOKEN);
    await client.listTools();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    const config = join(tmp.dir, 'mcp.json');
    const before = JSON.parse(readFileSync(config, 'utf8')) as { mcpServers: Record<string, unknown> };
    writeConfig(tmp.dir, { ...before.mcpServers, second: { command: process.execPath, args: [everythingPath] } });
    try {
      await client.ping();
      await waitFor(() => changed === 1, 5000, 'tools/list_changed');
      assert.match((await client.listTools()).tools[0]!.description!, /\n- second \(\d+\): /);
    } finally {
      writeConfig(tmp.dir, before.mcpServers);
    }
  });

  it('a generated token is printed once to stderr and works', async () => {
    const own = await serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: '' } });
    try {
      await waitFor(() => /token .*: (\S+)/.test(own.stderr()), 5000, 'the token line');
      const token = /token .*: (\S+)/.exec(own.stderr())![1]!;
      assert.ok(token.length >= 32);
      assert.equal(own.stderr().split(token).length - 1, 1, 'printed once');
      const client = await own.connect(token);
      assert.equal((await run(client, 'return 5')).structuredContent?.['result'], 5);
    } finally {
      await own.close();
    }
    assert.ok(!processAlive(own.child.pid!));
  });
});
