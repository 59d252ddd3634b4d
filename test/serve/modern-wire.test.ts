import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, serveHttp, type HttpServe } from '../support/berry-serve.js';
import { MODERN } from '../support/berry-serve-modern.js';
import { everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const TOKEN = 'wire-token';
const ELICIT = `const r = await tools.mcp_call({ server: 'everything', tool: 'trigger-elicitation-request', arguments: {} });
  return r.content.map((b) => b.text).join('\\n');`;

type Message = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };

function meta(capabilities: Record<string, unknown> = {}, version = MODERN): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
}

// The 2026-07-28 wire of serve, message by message, as a client without an SDK sends it.
describe('berry-mcp serve: the 2026-07-28 wire', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let serve: HttpServe;

  before(async () => {
    tmp = tempDir('berry-serve-wire-');
    writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
    serve = await serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN } });
  });
  after(async () => {
    await serve.close();
    tmp.cleanup();
  });

  /** POSTs one request the way a 2026 client does (version and method headers), and reads the answer with its id (JSON or SSE). */
  async function post(
    body: { id: unknown; method: string; params?: Record<string, unknown> },
    headers: Record<string, string> = {},
  ): Promise<{ status: number; message: Message }> {
    const name: Record<string, string> = typeof body.params?.['name'] === 'string' ? { 'mcp-name': body.params['name'] as string } : {};
    const response = await fetch(serve.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': body.method,
        ...name,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
    const text = await response.text();
    const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)) as Message)
      : [JSON.parse(text) as Message];
    const message = messages.find((m) => m.id === body.id) ?? messages.at(-1)!;
    return { status: response.status, message };
  }

  it('answers server/discover with 2026-07-28, its capabilities and who it is', async () => {
    const { status, message } = await post({ id: 'd1', method: 'server/discover', params: { _meta: meta() } });
    assert.equal(status, 200);
    assert.deepEqual(message.result?.['supportedVersions'], [MODERN]);
    assert.ok((message.result?.['capabilities'] as Record<string, unknown>)['tools']);
    assert.equal((message.result?.['_meta'] as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']?.name, 'berry-mcp');
  });

  it("puts ttlMs and cacheScope on tools/list: never cached, never shared (the description is live and names this machine's servers)", async () => {
    const { message } = await post({ id: 2, method: 'tools/list', params: { _meta: meta() } });
    assert.equal(message.result?.['ttlMs'], 0);
    assert.equal(message.result?.['cacheScope'], 'private');
    assert.deepEqual(
      (message.result?.['tools'] as { name: string }[]).map((t) => t.name),
      ['run'],
    );
  });

  it('validates _meta and the version header, echoing the request id in every error', async () => {
    const missing = await post({ id: 'no-meta', method: 'tools/list', params: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.message.error?.code, -32602);
    assert.equal(missing.message.id, 'no-meta');

    const mismatch = await post({ id: 31, method: 'server/discover', params: { _meta: meta({}, '2099-01-01') } });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.message.error?.code, -32020);
    assert.equal(mismatch.message.id, 31);

    const unsupported = await post({ id: 32, method: 'server/discover', params: { _meta: meta({}, '2099-01-01') } }, { 'mcp-protocol-version': '2099-01-01' });
    assert.equal(unsupported.status, 400);
    assert.equal(unsupported.message.error?.code, -32022);
    assert.deepEqual(unsupported.message.error?.data, { supported: [MODERN], requested: '2099-01-01' });
    assert.equal(unsupported.message.id, 32);

    const unknownTool = await post({ id: 'call-7', method: 'tools/call', params: { name: 'nope', arguments: {}, _meta: meta() } });
    assert.equal(unknownTool.message.error?.code, -32602);
    assert.match(unknownTool.message.error?.message ?? '', /one tool, "run"/);
    assert.equal(unknownTool.message.id, 'call-7');
  });

  it('answers 404 / -32601 for the methods 2026-07-28 removed', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe']) {
      const { status, message } = await post({ id: `gone-${method}`, method, params: { _meta: meta() } });
      assert.equal(status, 404, method);
      assert.equal(message.error?.code, -32601, method);
      assert.equal(message.id, `gone-${method}`, method);
    }
  });

  it('keeps the bearer token and the Origin check for 2026 requests', async () => {
    const anonymous = await post({ id: 1, method: 'server/discover', params: { _meta: meta() } }, { authorization: '' });
    assert.equal(anonymous.status, 401);
    const foreign = await post({ id: 1, method: 'server/discover', params: { _meta: meta() } }, { origin: 'http://evil.example.com' });
    assert.equal(foreign.status, 403);
  });

  it('returns a forwarded elicitation as input_required; the retry with inputResponses and requestState gets the result', async () => {
    const params = { name: 'run', arguments: { code: ELICIT } };
    const first = await post({ id: 'leg-1', method: 'tools/call', params: { ...params, _meta: meta({ elicitation: { form: {} } }) } });
    assert.equal(first.status, 200);
    const asked = first.message.result!;
    assert.equal(asked['resultType'], 'input_required');
    const [[key, request]] = Object.entries(asked['inputRequests'] as Record<string, { method: string; params: { message: string } }>) as [
      [string, { method: string; params: { message: string } }],
    ];
    assert.equal(request.method, 'elicitation/create');
    assert.match(request.params.message, /Please provide inputs/);
    const requestState = asked['requestState'] as string;
    assert.equal(typeof requestState, 'string');

    // A state that does not verify is refused, with the retry's id; so is a retry with other arguments.
    const tampered = await post({
      id: 'leg-x',
      method: 'tools/call',
      params: { ...params, requestState: `${requestState}x`, inputResponses: {}, _meta: meta() },
    });
    assert.equal(tampered.message.error?.code, -32602);
    assert.equal(tampered.message.id, 'leg-x');
    const changed = await post({
      id: 'leg-y',
      method: 'tools/call',
      params: { name: 'run', arguments: { code: 'return 1' }, requestState, inputResponses: {}, _meta: meta() },
    });
    assert.equal(changed.message.error?.code, -32602);

    const answer = { action: 'accept', content: { name: 'Grace Hopper', check: true, email: 'grace@example.com', integer: 3 } };
    const second = await post({
      id: 'leg-2',
      method: 'tools/call',
      params: { ...params, requestState, inputResponses: { [key]: answer }, _meta: meta({ elicitation: { form: {} } }) },
    });
    assert.equal(second.message.id, 'leg-2');
    assert.equal(second.message.result?.['isError'], undefined, JSON.stringify(second.message));
    assert.match((second.message.result?.['structuredContent'] as { result: string }).result, /Grace Hopper/);
  });

  it('announces a change of mcp.json on an open subscriptions/listen stream, as notifications/tools/list_changed', async () => {
    await post({ id: 'before', method: 'tools/list', params: { _meta: meta() } });
    const listen = new AbortController();
    const response = await fetch(serve.url, {
      method: 'POST',
      signal: listen.signal,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'sub', method: 'subscriptions/listen', params: { _meta: meta(), notifications: { toolsListChanged: true } } }),
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const frames: { method?: string }[] = [];
    let buffered = '';
    const nextFrame = async (): Promise<{ method?: string }> => {
      for (;;) {
        const line = buffered.split('\n').find((l) => l.startsWith('data:'));
        if (line !== undefined) {
          buffered = buffered.slice(buffered.indexOf(line) + line.length + 1);
          const frame = JSON.parse(line.slice(5)) as { method?: string };
          frames.push(frame);
          return frame;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`the listen stream ended; frames: ${JSON.stringify(frames)}`);
        buffered += value;
      }
    };
    try {
      assert.equal((await nextFrame()).method, 'notifications/subscriptions/acknowledged');
      writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] }, again: { command: process.execPath, args: [everythingPath] } });
      // No file watcher: the next request rereads mcp.json and finds the change.
      await post({ id: 'after', method: 'tools/list', params: { _meta: meta() } });
      assert.equal((await nextFrame()).method, 'notifications/tools/list_changed');
    } finally {
      listen.abort();
      writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
    }
  });

  it('speaks the same 2026 wire over stdio: discover, removed methods and errors with their ids', async () => {
    const child = spawn(process.execPath, ['--no-node-snapshot', BIN, 'serve', '--config', 'mcp.json'], { cwd: tmp.dir, stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout! });
    const answers = new Map<unknown, Message>();
    const waiting = new Map<unknown, (m: Message) => void>();
    lines.on('line', (line) => {
      const message = JSON.parse(line) as Message;
      waiting.get(message.id)?.(message);
      answers.set(message.id, message);
    });
    const ask = (id: unknown, method: string, params: Record<string, unknown>): Promise<Message> => {
      const answered = new Promise<Message>((resolve) => waiting.set(id, resolve));
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answered;
    };
    try {
      const discover = await ask(1, 'server/discover', { _meta: meta() });
      assert.deepEqual(discover.result?.['supportedVersions'], [MODERN]);
      const ping = await ask('p', 'ping', { _meta: meta() });
      assert.equal(ping.error?.code, -32601);
      const bad = await ask('b', 'tools/call', { name: 'nope', arguments: {}, _meta: meta() });
      assert.equal(bad.error?.code, -32602);
      const ran = await ask('r', 'tools/call', { name: 'run', arguments: { code: 'return 6 * 7' }, _meta: meta() });
      assert.equal((ran.result?.['structuredContent'] as { result: number }).result, 42);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
