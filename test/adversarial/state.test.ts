import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { createRunState, runScript, StateValues } from '../../src/runtime/index.js';
import { MemoryStateStore } from '../../src/serve/state/state-store.js';
import { run, serveHttp, serveStdio, texts, type HttpServe } from '../support/berry-serve.js';
import { modernHttp, runModern, type RunAnswer } from '../support/berry-serve-modern.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const ALICE = 'alice-attack-token-0123456789';
const MALLORY = 'mallory-attack-token-01234567';

async function runWith(client: ModernClient, code: string, state?: string): Promise<RunAnswer> {
  return (await runModern(client, code, { state, timeoutMs: 60_000 })).structuredContent as RunAnswer;
}

// The cheapest ways around the bounds of store()/load() and of the states serve keeps.
describe('attacks on store, load and serve’s states', function () {
  this.timeout(180_000);
  let tmp: ReturnType<typeof tempDir>;
  const closers: (() => Promise<unknown>)[] = [];

  before(() => {
    tmp = tempDir('berry-state-attack-');
    writeConfig(tmp.dir, {});
    writeFileSync(join(tmp.dir, 'tokens'), `alice ${ALICE}\nmallory ${MALLORY}\n`, { mode: 0o600 });
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

  it('state ids are 256 random bits, never derived from each other: guesses and near misses are all unknown', async () => {
    const serve = await startHttp(['--workers', '0']);
    const alice = await modernHttp(serve.url, ALICE);
    const mallory = await modernHttp(serve.url, MALLORY);
    closers.push(
      () => alice.close(),
      () => mallory.close(),
    );
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await runWith(alice, `store('i', ${i})`)).state!);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, /^[A-Za-z0-9_-]{43}$/);
    // No shared prefix or counter: ids of consecutive runs differ in most characters.
    const same = [...ids[0]!].filter((c, i) => ids[1]![i] === c).length;
    assert.ok(same < 10, `${ids[0]} and ${ids[1]} share ${same} characters`);
    // Mallory, with Alice's ids, ids one character off, the empty id and a huge one.
    const tries = [...ids.slice(0, 5), `${ids[0]!.slice(0, 42)}_`, '', 'x'.repeat(200), ids[0]!.toLowerCase()];
    for (const id of tries) {
      const answer = await runWith(mallory, `return load('i')`, id);
      assert.equal(answer.error?.code, 'SERVE_STATE_UNKNOWN', `id ${id}`);
      assert.equal(answer.result, undefined);
    }
    const huge = await mallory.callTool({ name: 'run', arguments: { code: 'return 1', state: 'x'.repeat(100_000) } });
    assert.equal(huge.isError, true);
    // Alice's states are untouched by the attempts.
    assert.equal((await runWith(alice, `return load('i')`, ids[3])).result, 3);
  });

  it('one holder making states without end keeps at most its cap; the oldest go first, another holder’s stay', async () => {
    const serve = await startHttp(['--workers', '0']);
    const alice = await modernHttp(serve.url, ALICE);
    const mallory = await modernHttp(serve.url, MALLORY);
    closers.push(
      () => alice.close(),
      () => mallory.close(),
    );
    const kept = (await runWith(alice, `store('mine', 'alice')`)).state!;
    const first = (await runWith(mallory, `store('k', 0)`)).state!;
    // 256 states per holder: the 300th run's state evicts Mallory's first, never Alice's.
    for (let i = 1; i < 300; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => runWith(mallory, `store('k', ${i + j})`)));
    assert.equal((await runWith(mallory, `return load('k')`, first)).error?.code, 'SERVE_STATE_UNKNOWN');
    assert.equal((await runWith(alice, `return load('mine')`, kept)).result, 'alice');
  });

  it('the store caps bytes as well as states: big states evict the holder’s own oldest, and the whole store stays within its bytes', async () => {
    const store = new MemoryStateStore({ maxStates: 100, maxBytes: 10_000_000, maxStatesPerOwner: 50, maxBytesPerOwner: 5_000_000 });
    closers.push(async () => store.close());
    const big = (): StateValues => {
      const state = new StateValues();
      state.set('v', 'x'.repeat(1_000_000));
      return state;
    };
    await store.put('victim', 'victim', big());
    for (let i = 0; i < 20; i++) await store.put(`m${i}`, 'mallory', big());
    assert.ok(store.usage.bytes <= 10_000_000);
    assert.ok(await store.get('victim', 'victim'), 'one holder past its own share evicts only its own states');
    assert.equal(await store.get('m0', 'mallory'), undefined);
    assert.ok(await store.get('m19', 'mallory'));
    // Many holders together: the store as a whole stays within its bytes and states.
    for (let i = 0; i < 40; i++) await store.put(`h${i}`, `holder${i}`, big());
    assert.ok(store.usage.bytes <= 10_000_000, String(store.usage.bytes));
    assert.ok(store.usage.states <= 100);
    // An id is bound to its holder: another's put does not take it over, another's get does not see it.
    await store.put('h39', 'mallory', new StateValues());
    assert.equal(await store.get('h39', 'mallory'), undefined);
    assert.ok(await store.get('h39', 'holder39'));
  });

  it('many keys and big values in one run stop at the state’s bounds', async () => {
    const state = createRunState();
    const keys = await runScript(`let i = 0; try { for (;; i++) store('k' + i, i); } catch (e) { return [i, e.code]; }`, { functions: {}, state });
    assert.deepEqual(keys.result, [1000, 'SCRIPT_STATE_LIMIT']);
    state.clear();
    const bytes = await runScript(`let i = 0; try { for (;; i++) store('v' + i, 'x'.repeat(1000000)); } catch (e) { return [i, e.code]; }`, {
      functions: {},
      state,
    });
    assert.deepEqual(bytes.result, [4, 'SCRIPT_STATE_LIMIT']);
    assert.ok(state.bytes <= 4_194_304);
    // A long string built cheaply (a rope) is refused before it is copied flat.
    const rope = await runScript(`let s = 'x'; for (let i = 0; i < 28; i++) s += s; store('rope', s)`, { functions: {}, state, memoryLimitMb: 16 });
    assert.equal(rope.ok, false);
    assert.equal(rope.error?.name, 'RangeError');
    assert.equal(state.has('rope'), false);
  });

  it('a state grows across runs only up to its total, through worker processes too, and concurrent runs cannot add up past it', async () => {
    const serve = await serveStdio(['--config', 'mcp.json', '--workers', '1', '--max-concurrency', '6'], { cwd: tmp.dir });
    closers.push(() => serve.close());
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await run(serve.client, `store('run${i}', 'x'.repeat(1000000)); return ${i}`));
    assert.deepEqual(
      outcomes.map((r) => r.structuredContent?.['ok']),
      [true, true, true, true, false],
    );
    assert.match(texts(outcomes[4]!).join('\n'), /SCRIPT_STATE_LIMIT.*more than its limit of 4194304 bytes in all/s);
    // Six runs at once, each within the bound of its own copy: what comes back is applied within the bound.
    await run(serve.client, `for (let i = 0; i < 5; i++) store('run' + i, undefined)`);
    const keys = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
    const together = await Promise.all(
      keys.map((key) => run(serve.client, `const t = Date.now(); while (Date.now() - t < 300); store('${key}', 'y'.repeat(1000000)); return 'ok'`)),
    );
    const lengths = (await run(serve.client, `return ${JSON.stringify(keys)}.map((k) => (load(k) ?? '').length)`)).structuredContent?.['result'] as number[];
    const total = lengths.reduce((a, b) => a + b, 0);
    assert.ok(total <= 4_194_304, `the state holds ${total} bytes`);
    assert.equal(total, 4_000_000);
    const warned = together.filter((r) => texts(r).some((t) => /was not kept: another run of this state filled it meanwhile \[SCRIPT_STATE_LIMIT\]/.test(t)));
    const refused = together.filter((r) => r.structuredContent?.['ok'] === false);
    assert.equal(warned.length + refused.length, 2);
    assert.ok(warned.length > 0, 'at least one run was applied over another (they ran at once)');
  });

  it('values cheap to store but dear to load: refused at load in an 8 MB run, with SCRIPT_STATE_LIMIT, never a dead worker', async () => {
    const serve = await serveStdio(['--config', 'mcp.json', '--workers', '1', '--memory', '8'], { cwd: tmp.dir });
    closers.push(() => serve.close());
    // A million characters of commas: 1 MB to keep, about 9 MB to parse.
    const stored = await run(serve.client, `store('zeros', new Array(500000).fill(0)); return 'stored'`);
    assert.equal(stored.structuredContent?.['result'], 'stored', texts(stored).join('\n'));
    const loaded = await run(serve.client, `return load('zeros').length`);
    assert.equal(loaded.structuredContent?.['ok'], false);
    assert.equal((loaded.structuredContent?.['error'] as { code?: string }).code, 'SCRIPT_STATE_LIMIT');
    // A 1 MB string loaded again and again, each copy kept: refused once the run has no room, not a crash.
    await run(serve.client, `store('zeros', undefined); store('text', 'z'.repeat(1000000))`);
    const hoard = await run(serve.client, `const keep = []; try { for (;;) keep.push(load('text')); } catch (e) { return [keep.length, e.code]; }`);
    const [count, code] = hoard.structuredContent?.['result'] as [number, string];
    assert.equal(code, 'SCRIPT_STATE_LIMIT');
    assert.ok(count >= 2, `loaded ${count} copies`);
    // The worker lived: a plain run still works, in the same session and state.
    assert.equal((await run(serve.client, `return load('text').length`)).structuredContent?.['result'], 1_000_000);
    assert.doesNotMatch(serve.stderr(), /SERVE_WORKER_FAILED|killed/);
  });

  it('__proto__ and constructor keys pollute nothing on their way through a worker and back', async () => {
    const serve = await serveStdio(['--config', 'mcp.json', '--workers', '1'], { cwd: tmp.dir });
    closers.push(() => serve.close());
    await run(serve.client, `store('__proto__', { admin: true }); store('constructor', { prototype: { admin: true } })`);
    const result = await run(
      serve.client,
      `return [load('__proto__').admin, ({}).admin === undefined, load('constructor').prototype.admin, typeof load('valueOf')]`,
    );
    assert.deepEqual(result.structuredContent?.['result'], [true, true, true, 'undefined']);
  });
});
