import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpServe, run, serveHttp, texts } from '../support/berry-serve.js';
import { faultServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const TOKEN = 'limits-token';
const sleepRun = (ms: number): string => `await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: ${ms} } }); return 'slept';`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('berry-mcp serve --http: fairness between clients, queue and session caps', function () {
  this.timeout(90_000);
  let tmp: ReturnType<typeof tempDir>;
  let eventLog: string;
  const serves: HttpServe[] = [];

  before(() => {
    tmp = tempDir('berry-serve-limits-');
    eventLog = join(tmp.dir, 'events.log');
    writeConfig(tmp.dir, { fault: { command: process.execPath, args: [faultServerPath], env: { FIXTURE_EVENT_LOG: eventLog } } });
  });
  after(async () => {
    await Promise.all(serves.map((s) => s.close()));
    tmp.cleanup();
  });

  async function start(args: string[], env: Record<string, string> = { BERRY_SERVE_TOKEN: TOKEN }): Promise<HttpServe> {
    const serve = await serveHttp(['--config', 'mcp.json', ...args], { cwd: tmp.dir, env });
    serves.push(serve);
    return serve;
  }

  it("a client's run waits behind at most one of another client's queued runs (round robin, not one FIFO)", async () => {
    const serve = await start(['--max-concurrency', '1']);
    const a = await serve.connect(TOKEN);
    const b = await serve.connect(TOKEN);
    // Warm the connection so the first run does not also pay the server's start.
    await run(a, sleepRun(1));
    writeFileSync(eventLog, '');
    const order: string[] = [];
    const track = (name: string, result: Promise<CallToolResult>) =>
      result.then((r) => {
        assert.equal(r.isError, undefined, texts(r).join('\n'));
        order.push(name);
      });
    const mine = [1, 2, 3, 4].map((n) => track(`a${n}`, run(a, sleepRun(700))));
    await waitForEvent(eventLog, 'started sleep');
    await Promise.all([...mine, track('b', run(b, 'return 1'))]);
    // b came while a1 ran, behind a2..a4: it goes right after a2 (FIFO would put it last).
    assert.ok(order.indexOf('b') <= 2, order.join(' '));
    assert.equal(order.length, 5);
  });

  it('refuses a run at once with SERVE_QUEUE_FULL once its client has --max-queued-runs waiting; another client still queues', async () => {
    const serve = await start(['--max-concurrency', '1', '--max-queued-runs', '2']);
    const a = await serve.connect(TOKEN);
    const b = await serve.connect(TOKEN);
    writeFileSync(eventLog, '');
    const running = run(a, sleepRun(1500));
    await waitForEvent(eventLog, 'started sleep');
    const queued = [run(a, 'return 2'), run(a, 'return 3')];
    await pause(300);
    const refused = await run(a, 'return 4');
    assert.equal(refused.isError, true);
    assert.match(texts(refused).join('\n'), /already has 2 runs waiting.*\[SERVE_QUEUE_FULL\]/s);
    const other = await run(b, 'return 5');
    assert.equal(other.structuredContent?.['result'], 5);
    for (const result of await Promise.all([running, ...queued])) assert.equal(result.isError, undefined, texts(result).join('\n'));
  });

  it('a new session past --max-sessions evicts the oldest idle one (its next request: 404), and gets 503 when none is idle', async () => {
    const serve = await start(['--max-sessions', '2']);
    const busy = await serve.connect(TOKEN);
    const idle = await serve.connect(TOKEN);
    writeFileSync(eventLog, '');
    const long = run(busy, sleepRun(5000));
    await waitForEvent(eventLog, 'started sleep');
    const newcomer = await serve.connect(TOKEN);
    await newcomer.ping();
    await assert.rejects(idle.ping(), (error: Error & { code?: number }) => {
      assert.match(error.message, /404|Session not found/);
      return true;
    });
    await busy.ping();
    // Both sessions busy: the next initialize is refused with 503 and a JSON-RPC error.
    const second = run(newcomer, sleepRun(3000));
    await waitForEvent(eventLog, 'started sleep', { count: 2 });
    const response = await initialize(serve.url);
    assert.equal(response.status, 503);
    const body = (await response.json()) as { error: { code: number; message: string } };
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /Too many sessions: all 2 have runs executing or queued/);
    for (const result of await Promise.all([long, second])) assert.equal(result.isError, undefined, texts(result).join('\n'));
  });

  it('with several tokens, a new session takes the place of an idle one of the holder with the most, and gets 503 only when every session is busy', async () => {
    const tokens = { alice: 'alice-session-token-0123', mallory: 'mallory-session-token-01', carol: 'carol-session-token-0123' };
    writeFileSync(
      join(tmp.dir, 'tokens'),
      Object.entries(tokens)
        .map(([name, token]) => `${name} ${token}\n`)
        .join(''),
      { mode: 0o600 },
    );
    const serve = await start(['--token-file', 'tokens', '--max-sessions', '3', '--max-holder-sessions', '2', '--max-concurrency', '4'], {});
    // Alice's session is the least recently seen, but mallory holds more: mallory's idle one goes.
    const alice = await serve.connect(tokens.alice);
    const idle = await serve.connect(tokens.mallory);
    const busy = await serve.connect(tokens.mallory);
    writeFileSync(eventLog, '');
    const runs = [run(busy, sleepRun(4000))];
    await waitForEvent(eventLog, 'started sleep');
    const carol = await serve.connect(tokens.carol);
    await assert.rejects(idle.ping(), /404|Session not found/);
    await alice.ping();
    // Every session busy, mallory below its own cap: the server is full of others' work, 503.
    runs.push(run(alice, sleepRun(4000)), run(carol, sleepRun(4000)));
    await waitForEvent(eventLog, 'started sleep', { count: 3 });
    const response = await initialize(serve.url, tokens.mallory);
    assert.equal(response.status, 503);
    const body = (await response.json()) as { error: { message: string; data: { code: string } } };
    assert.equal(body.error.data.code, 'SERVE_SESSION_LIMIT');
    assert.match(body.error.message, /Too many sessions: all 3 have runs executing or queued \(serve --max-sessions\)/);
    for (const result of await Promise.all(runs)) assert.equal(result.isError, undefined, texts(result).join('\n'));
  });
});

function initialize(url: string, token = TOKEN): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'extra', version: '1' } },
    }),
  });
}
