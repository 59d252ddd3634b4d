import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpServe, run, serveHttp } from '../support/berry-serve.js';
import { MODERN, modernHttp, modernMessages, modernMeta, modernTexts, postModern, resultOf, runModern } from '../support/berry-serve-modern.js';
import { faultServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { events, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

// Attacks on what one client of serve --http can hold: execution slots, queue places, sessions and
// streams. Each hog holds its resource for as long as it likes (a run that never settles); the
// other client must still be served at once, not when the hog lets go.
const ONE_TOKEN = 'limits-one-token-0123456789';
const ALICE = 'alice-token-0123456789abcdef';
const MALLORY = 'mallory-token-0123456789abcd';
/** Starts (one sleep call, which the fixture logs), then never settles: it holds its slot until its 120 s run timeout. */
const HOG = "await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 1 } }); await new Promise(() => {});";
/** How soon a run with a slot kept for it must complete (a run waiting for a hog's slot takes 120 s). */
const PROMPT_MS = 2500;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('attacks: serve --http limits bound what one client or token holder holds', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let eventLog: string;
  const serves: HttpServe[] = [];
  const closers: (() => Promise<unknown>)[] = [];

  before(() => {
    tmp = tempDir('berry-attack-limits-');
    eventLog = join(tmp.dir, 'events.log');
    writeConfig(tmp.dir, { fault: { command: process.execPath, args: [faultServerPath], env: { FIXTURE_EVENT_LOG: eventLog } } });
    writeFileSync(join(tmp.dir, 'tokens'), `# holders\nalice ${ALICE}\nmallory ${MALLORY}\n`, { mode: 0o600 });
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
    await Promise.all(serves.splice(0).map((s) => s.close()));
  });
  after(() => tmp.cleanup());

  /** serve --http with `args`: one token (BERRY_SERVE_TOKEN), or alice's and mallory's (--token-file). */
  async function start(args: string[], tokens: 'one' | 'file'): Promise<HttpServe> {
    writeFileSync(eventLog, '');
    const tokenArgs = tokens === 'file' ? ['--token-file', 'tokens'] : [];
    const env: Record<string, string> = tokens === 'one' ? { BERRY_SERVE_TOKEN: ONE_TOKEN } : {};
    const serve = await serveHttp(['--config', 'mcp.json', ...tokenArgs, ...args], { cwd: tmp.dir, env });
    serves.push(serve);
    return serve;
  }

  function hog(result: Promise<unknown>): void {
    result.catch(() => {});
  }

  /** Runs `return 1` and says how long it took; a run that cannot start fails after 10 s. */
  async function quick(call: (signal: AbortSignal) => Promise<Pick<CallToolResult, 'isError' | 'content'> & { structuredContent?: unknown }>): Promise<number> {
    const t0 = performance.now();
    const result = await call(AbortSignal.timeout(10_000));
    const ms = performance.now() - t0;
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    assert.equal((result.structuredContent as { result?: unknown } | undefined)?.result, 1);
    return ms;
  }

  /** How many hogs have started (each logged its sleep call). */
  function hogsStarted(): number {
    return events(eventLog).filter((line) => line === 'started sleep').length;
  }

  it("one session's never-settling runs hold at most its share of the slots: another session's run completes at once", async () => {
    const serve = await start(['--max-concurrency', '8'], 'one');
    const [a, b] = [await serve.connect(ONE_TOKEN), await serve.connect(ONE_TOKEN)];
    for (let i = 0; i < 8; i++) hog(run(a, HOG, { timeoutSeconds: 120 }));
    await waitForEvent(eventLog, 'started sleep', { count: 6 });
    await pause(500);
    const ms = await quick((signal) => run(b, 'return 1', { signal }));
    assert.ok(ms < PROMPT_MS, `the other client waited ${Math.round(ms)} ms`);
    // Three quarters of 8: two slots stay out of any one client's reach.
    assert.equal(hogsStarted(), 6);
  });

  it("a holder's many sessions and its 2026 requests together hold at most its share: another holder's runs, in both revisions, start at once", async () => {
    const serve = await start(['--max-concurrency', '8'], 'file');
    // The cheapest ways past a per-client cap: more sessions, more 2026 clients (reconnecting), both revisions at once.
    for (let i = 0; i < 4; i++) hog(run(await serve.connect(MALLORY), HOG, { timeoutSeconds: 120 }));
    for (let i = 0; i < 2; i++) {
      const reconnected = await modernHttp(serve.url, MALLORY);
      closers.push(() => reconnected.close());
      for (let j = 0; j < 2; j++) hog(runModern(reconnected, HOG));
    }
    await waitForEvent(eventLog, 'started sleep', { count: 6 });
    await pause(500);
    const legacy = await serve.connect(ALICE);
    const modern = await modernHttp(serve.url, ALICE);
    closers.push(() => modern.close());
    const times = await Promise.all([quick((signal) => run(legacy, 'return 1', { signal })), quick((signal) => runModern(modern, 'return 1', { signal }))]);
    for (const ms of times) assert.ok(ms < PROMPT_MS, `alice waited ${Math.round(ms)} ms`);
    assert.equal(hogsStarted(), 6);
  });

  it("a run's slot is freed when its client closes the connection, in both revisions", async () => {
    const serve = await start(['--max-concurrency', '1'], 'one');
    // 2025: a raw POST on a session, its socket closed while the run holds the only slot.
    const transport = new StreamableHTTPClientTransport(new URL(serve.url), { requestInit: { headers: { authorization: `Bearer ${ONE_TOKEN}` } } });
    const a = new Client({ name: 'gone', version: '1' });
    await a.connect(transport);
    closers.push(() => a.close());
    const gone = new AbortController();
    const held = fetch(serve.url, {
      method: 'POST',
      signal: gone.signal,
      headers: {
        authorization: `Bearer ${ONE_TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'run', arguments: { code: HOG, timeoutSeconds: 120 } } }),
    });
    held.catch(() => {});
    await waitForEvent(eventLog, 'started sleep');
    gone.abort();
    const b = await serve.connect(ONE_TOKEN);
    assert.ok((await quick((signal) => run(b, 'return 1', { signal }))) < PROMPT_MS);
    // 2026: the request's stream closed is its cancellation.
    const modern = await modernHttp(serve.url, ONE_TOKEN);
    closers.push(() => modern.close());
    const cancel = new AbortController();
    hog(runModern(modern, HOG, { signal: cancel.signal }));
    await waitForEvent(eventLog, 'started sleep', { count: 2 });
    cancel.abort();
    assert.ok((await quick((signal) => run(b, 'return 1', { signal }))) < PROMPT_MS);
  });

  it("one holder's 2026 backlog is its own: another holder is not refused SERVE_QUEUE_FULL, and a new client or clientInfo does not help the first", async () => {
    const serve = await start(['--max-concurrency', '2', '--max-queued-runs', '2'], 'file');
    const mallory = await modernHttp(serve.url, MALLORY);
    closers.push(() => mallory.close());
    // One executes (its share of 2), two wait: its queue is full.
    for (let i = 0; i < 3; i++) hog(runModern(mallory, HOG));
    await waitForEvent(eventLog, 'started sleep');
    await pause(500);
    const refused = await runModern(mallory, 'return 1', { timeoutMs: 10_000 });
    assert.equal(refused.isError, true);
    assert.match(modernTexts(refused).join('\n'), /already has 2 runs waiting.*\[SERVE_QUEUE_FULL\]/s);
    // A fresh client claiming to be someone else is still mallory: its token says so, and nothing else counts.
    const disguised = new ModernClient({ name: 'alice-agent', version: '9' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await disguised.connect(new ModernTransport(new URL(serve.url), { requestInit: { headers: { authorization: `Bearer ${MALLORY}` } } }));
    closers.push(() => disguised.close());
    assert.match(modernTexts(await runModern(disguised, 'return 1', { timeoutMs: 10_000 })).join('\n'), /\[SERVE_QUEUE_FULL\]/);
    const alice = await modernHttp(serve.url, ALICE);
    closers.push(() => alice.close());
    assert.ok((await quick((signal) => runModern(alice, 'return 1', { signal }))) < PROMPT_MS);
    assert.equal(resultOf(await runModern(alice, 'return 1')), 1);
    assert.equal(hogsStarted(), 1);
  });

  it("a holder's busy sessions are refused past its own cap (429 SERVE_SESSION_LIMIT); another holder still gets a session and a slot", async () => {
    // 4 sessions in all, 3 for one holder; 2 slots, 1 for one holder.
    const serve = await start(['--max-concurrency', '2', '--max-sessions', '4'], 'file');
    const idle = await serve.connect(MALLORY);
    for (let i = 0; i < 2; i++) hog(run(await serve.connect(MALLORY), HOG, { timeoutSeconds: 120 }));
    await waitForEvent(eventLog, 'started sleep');
    // At its cap, a new session of mallory's takes the place of its own idle one (a new session per run gains nothing)…
    const again = await serve.connect(MALLORY);
    await assert.rejects(idle.ping(), /404|Session not found/);
    hog(run(again, HOG, { timeoutSeconds: 120 }));
    await pause(300);
    // …and with all three busy it is refused, however often it asks.
    for (let i = 0; i < 5; i++) {
      const response = await initialize(serve.url, MALLORY);
      assert.equal(response.status, 429);
      const body = (await response.json()) as { error: { message: string; data?: { code?: string } } };
      assert.equal(body.error.data?.code, 'SERVE_SESSION_LIMIT');
      assert.match(body.error.message, /Too many sessions for this token: its 3 all have runs executing or queued \(serve --max-holder-sessions\)/);
    }
    const alice = await serve.connect(ALICE);
    assert.ok((await quick((signal) => run(alice, 'return 1', { signal }))) < PROMPT_MS);
  });

  for (const tokens of ['one', 'file'] as const) {
    it(`one holder's 300 subscriptions/listen streams: refused past its cap (429 SERVE_STREAM_LIMIT), a closed one frees its place${tokens === 'file' ? ', another holder still listens' : ''}`, async () => {
      const serve = await start([], tokens);
      const holder = tokens === 'one' ? ONE_TOKEN : MALLORY;
      const open = new AbortController();
      closers.push(async () => open.abort());
      const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => listen(serve.url, holder, `l${i}`, open.signal)));
      const refused = answers.filter((a) => a.status === 429);
      assert.equal(answers.filter((a) => a.acknowledged).length, 16);
      assert.equal(refused.length, 284);
      assert.equal(refused[0]!.error?.data?.code, 'SERVE_STREAM_LIMIT');
      assert.match(refused[0]!.error!.message, /it has 16 subscriptions\/listen streams open \(serve --max-holder-streams\)/);
      const one = new AbortController();
      assert.equal((await listen(serve.url, holder, 'one-more', one.signal)).status, 429);
      open.abort();
      await pause(300);
      assert.equal((await listen(serve.url, holder, 'after-close', one.signal)).acknowledged, true);
      one.abort();
      if (tokens === 'file') {
        const alice = await modernHttp(serve.url, ALICE);
        closers.push(() => alice.close());
        const subscription = await alice.listen({ toolsListChanged: true });
        await subscription.close();
      }
    });
  }

  it("a run's requestState replayed on many requests at once holds no stream per copy, and is no other holder's to answer", async () => {
    const serve = await start(['--confirm-writes'], 'file');
    // Asked about once (echo may write), then never settles.
    const code = "await tools.mcp_call({ server: 'fault', tool: 'echo', arguments: { text: 'x' } }); await new Promise(() => {});";
    const params = { name: 'run', arguments: { code, timeoutSeconds: 60 } };
    const first = (
      await modernMessages(
        await postModern(serve.url, ALICE, { id: 1, method: 'tools/call', params: { ...params, _meta: modernMeta({ elicitation: { form: {} } }) } }),
      )
    ).at(-1)!;
    const asked = first['result'] as { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    assert.equal(asked.resultType, 'input_required');
    const [key] = Object.keys(asked.inputRequests);
    const retry = { ...params, requestState: asked.requestState, _meta: modernMeta({ elicitation: { form: {} } }) };
    const answered = { ...retry, inputResponses: { [key!]: { action: 'accept', content: { approve: true } } } };
    // Alice answers: the run goes on (it never settles), and this leg waits for its end.
    const leg = new AbortController();
    closers.push(async () => leg.abort());
    hog(postModern(serve.url, ALICE, { id: 2, method: 'tools/call', params: answered }, leg.signal));
    await waitForEvent(eventLog, 'started echo');
    const last = async (token: string, id: string, params: Record<string, unknown>) =>
      (await modernMessages(await postModern(serve.url, token, { id, method: 'tools/call', params }, AbortSignal.timeout(10_000)))).at(-1)!;
    const replays = await Promise.all(Array.from({ length: 20 }, (_, i) => last(ALICE, `r${i}`, retry)));
    for (const reply of replays) assert.match((reply['error'] as { message: string }).message, /Another request is already waiting for this run/);
    // Mallory holds alice's requestState: it names no run of mallory's (else mallory could answer alice's questions, or cancel her run).
    const stolen = await last(MALLORY, 'stolen', retry);
    assert.equal((stolen['error'] as { code: number }).code, -32602);
  });

  it('refuses a token file that is not one, naming the line and never a token', async () => {
    writeFileSync(join(tmp.dir, 'bad-tokens'), `alice ${ALICE}\nbob short\n`);
    await assert.rejects(serveHttp(['--config', 'mcp.json', '--token-file', 'bad-tokens'], { cwd: tmp.dir }), (error: Error) => {
      assert.match(error.message, /--token-file bad-tokens line 2: a token is 16 to 512 visible ASCII characters/);
      assert.doesNotMatch(error.message, /short|alice-token/);
      return true;
    });
    await assert.rejects(
      serveHttp(['--config', 'mcp.json', '--token-file', 'tokens'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: ONE_TOKEN } }),
      /--token-file and BERRY_SERVE_TOKEN both give tokens/,
    );
    await assert.rejects(
      serveHttp(['--config', 'mcp.json', '--max-concurrency', '4', '--max-client-concurrency', '5'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: ONE_TOKEN } }),
      /maxClientConcurrency \(serve --max-client-concurrency\) must be a whole number from 1 to maxConcurrency \(4\), got 5/,
    );
  });
});

function initialize(url: string, token: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'more', version: '1' } },
    }),
  });
}

/** Opens a subscriptions/listen stream and reads it up to its acknowledgement (left open until `signal` aborts), or reads the refusal. */
async function listen(
  url: string,
  token: string,
  id: string,
  signal: AbortSignal,
): Promise<{ status: number; acknowledged?: boolean; error?: { message: string; data?: { code?: string } } }> {
  const response = await postModern(
    url,
    token,
    { id, method: 'subscriptions/listen', params: { _meta: modernMeta(), notifications: { toolsListChanged: true } } },
    signal,
  );
  if (response.status !== 200) return { status: response.status, error: ((await response.json()) as { error: { message: string } }).error };
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { status: 200, acknowledged: false };
    buffered += value;
    if (buffered.includes('notifications/subscriptions/acknowledged')) {
      void reader.closed.catch(() => {});
      return { status: 200, acknowledged: true };
    }
    if (buffered.includes('"error"')) return { status: 200, acknowledged: false, error: { message: buffered } };
  }
}
