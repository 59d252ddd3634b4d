import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { run, serveHttp, serveStdio, texts, type HttpServe } from '../support/berry-serve.js';
import { modernHttp, modernStdio, modernTexts, runModern, type RunAnswer } from '../support/berry-serve-modern.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const ALICE = 'alice-state-token-0123456789';
const BOB = 'bob-state-token-0123456789ab';

/** `run` on a 2026-07-28 client, with `state` when given; the structured answer and the text blocks. */
async function runWith(client: ModernClient, code: string, state?: string): Promise<RunAnswer & { texts: string[] }> {
  const result = await runModern(client, code, { state, timeoutMs: 60_000 });
  return { ...(result.structuredContent as RunAnswer), texts: modernTexts(result) };
}

describe('berry-mcp serve: store and load between runs', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  const closers: (() => Promise<unknown>)[] = [];

  before(() => {
    tmp = tempDir('berry-serve-state-');
    writeConfig(tmp.dir, {});
    writeFileSync(join(tmp.dir, 'tokens'), `alice ${ALICE}\nbob ${BOB}\n`, { mode: 0o600 });
  });
  after(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
    tmp.cleanup();
  });
  const startHttp = async (args: string[]): Promise<HttpServe> => {
    const serve = await serveHttp(['--config', 'mcp.json', '--token-file', 'tokens', ...args], { cwd: tmp.dir });
    closers.push(() => serve.close());
    return serve;
  };

  for (const workers of ['1', '0']) {
    describe(`--workers ${workers}`, () => {
      it('2025-11-25 over stdio: the session keeps its state from run to run; another session starts empty', async () => {
        const one = await serveStdio(['--config', 'mcp.json', '--workers', workers], { cwd: tmp.dir });
        closers.push(() => one.close());
        const stored = await run(one.client, `store('rows', [{ id: 1 }, { id: 2 }]); return 'stored'`);
        assert.equal(stored.structuredContent?.['result'], 'stored', texts(stored).join('\n'));
        assert.equal(stored.structuredContent?.['state'], undefined);
        const loaded = await run(one.client, `const rows = load('rows'); rows.push({ id: 3 }); store('rows', rows); return load('rows').length`);
        assert.equal(loaded.structuredContent?.['result'], 3);
        // A failing run keeps what it stored before it failed.
        const failed = await run(one.client, `store('step', 'one'); throw new Error('then it broke')`);
        assert.equal(failed.isError, true);
        assert.equal((await run(one.client, `return load('step')`)).structuredContent?.['result'], 'one');
        const other = await serveStdio(['--config', 'mcp.json', '--workers', workers], { cwd: tmp.dir });
        closers.push(() => other.close());
        assert.equal((await run(other.client, `return load('rows') === undefined`)).structuredContent?.['result'], true);
        // A 2025 client cannot name a state.
        const named = await one.client.callTool({ name: 'run', arguments: { code: 'return 1', state: 'x'.repeat(43) } });
        assert.equal(named.isError, true);
        assert.match(texts(named as Parameters<typeof texts>[0]).join('\n'), /unknown argument "state"; run takes only "code" and "timeoutSeconds"/);
      });

      it('2025-11-25 over HTTP: each session its own state, gone with the session', async () => {
        const serve = await startHttp(['--workers', workers]);
        const a = await serve.connect(ALICE);
        const b = await serve.connect(ALICE);
        await run(a, `store('who', 'a')`);
        await run(b, `store('who', 'b')`);
        assert.equal((await run(a, `return load('who')`)).structuredContent?.['result'], 'a');
        assert.equal((await run(b, `return load('who')`)).structuredContent?.['result'], 'b');
        // Ending the session (DELETE) ends its state: a new session of the same token starts empty.
        const transport = new StreamableHTTPClientTransport(new URL(serve.url), { requestInit: { headers: { authorization: `Bearer ${ALICE}` } } });
        const c = new Client({ name: 'state-test', version: '1' });
        await c.connect(transport);
        await run(c, `store('who', 'c')`);
        await transport.terminateSession();
        await c.close();
        const d = await serve.connect(ALICE);
        assert.equal((await run(d, `return load('who') === undefined`)).structuredContent?.['result'], true);
      });

      it('2026-07-28 over stdio: the result carries a state id, run takes it back', async () => {
        const serve = await modernStdio(['--config', 'mcp.json', '--workers', workers], { cwd: tmp.dir });
        closers.push(() => serve.close());
        const tools = await serve.client.listTools();
        assert.equal((tools.tools[0]!.inputSchema.properties as Record<string, unknown>)['state'] !== undefined, true);
        const first = await runWith(serve.client, `store('n', 41); return 'first'`);
        assert.match(first.state!, /^[A-Za-z0-9_-]{43}$/);
        assert.ok(first.texts.some((t) => t.includes(`state: ${first.state}`)));
        const second = await runWith(serve.client, `store('n', load('n') + 1); return load('n')`, first.state);
        assert.deepEqual([second.result, second.state], [42, first.state]);
        // Without the id a run starts empty, under a new id.
        const fresh = await runWith(serve.client, `return load('n') === undefined`);
        assert.equal(fresh.result, true);
        assert.notEqual(fresh.state, first.state);
        assert.ok(!fresh.texts.some((t) => t.startsWith('state:')), 'an empty state is not announced in the text');
        // A failing run's stores are kept too.
        const failed = await runWith(serve.client, `store('partial', [1, 2]); null.boom`, first.state);
        assert.equal(failed.ok, false);
        assert.deepEqual((await runWith(serve.client, `return [load('n'), load('partial')]`, first.state)).result, [42, [1, 2]]);
      });
    });
  }

  it('2026-07-28 over HTTP: a state id is its holder’s alone; a wrong or forged one is unknown, saying to start without it', async () => {
    const serve = await startHttp(['--workers', '1']);
    const alice = await modernHttp(serve.url, ALICE);
    const bob = await modernHttp(serve.url, BOB);
    closers.push(
      () => alice.close(),
      () => bob.close(),
    );
    const made = await runWith(alice, `store('secret', 'alice only'); return 'kept'`);
    assert.equal(made.result, 'kept');
    // Another client of the same holder (its 2026 requests are one client) may use it.
    const again = await modernHttp(serve.url, ALICE);
    closers.push(() => again.close());
    assert.equal((await runWith(again, `return load('secret')`, made.state)).result, 'alice only');
    const unknownAnswers = [];
    for (const id of [made.state!, `${made.state!.slice(0, -1)}${made.state!.endsWith('A') ? 'B' : 'A'}`, 'not-an-id', 'A'.repeat(43)]) {
      const answer = await runWith(bob, `return load('secret')`, id);
      assert.equal(answer.ok, false);
      assert.equal(answer.error?.code, 'SERVE_STATE_UNKNOWN', id);
      assert.equal(answer.result, undefined);
      unknownAnswers.push(answer.error?.message);
    }
    // The same words whether the id exists for someone else or not at all.
    assert.equal(new Set(unknownAnswers).size, 1);
    assert.match(unknownAnswers[0]!, /Run again without "state" to start a new, empty one/);
    assert.equal((await runWith(alice, `return load('secret')`, made.state)).result, 'alice only');
  });

  it('2026-07-28: a state idle past --state-idle is gone', async () => {
    const serve = await startHttp(['--workers', '0', '--state-idle', '1']);
    const client = await modernHttp(serve.url, ALICE);
    closers.push(() => client.close());
    const made = await runWith(client, `store('k', 1)`);
    assert.equal((await runWith(client, `return load('k')`, made.state)).result, 1);
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const expired = await runWith(client, `return load('k')`, made.state);
    assert.equal(expired.error?.code, 'SERVE_STATE_UNKNOWN');
  });
});
