import assert from 'node:assert/strict';
import { StateBridge } from '../../src/runtime/state/state-bridge.js';
import { createRunState, runScript, StateValues, type RunRecord, type RunScriptOptions, type RunState } from '../../src/runtime/index.js';

const run = (code: string, options: Partial<RunScriptOptions> = {}): Promise<RunRecord> => runScript(code, { functions: {}, timeoutMs: 10_000, ...options });

/** The run's result; fails the test with the run's error otherwise. */
async function value(code: string, options: Partial<RunScriptOptions> = {}): Promise<unknown> {
  const record = await run(code, options);
  assert.equal(record.ok, true, JSON.stringify(record.error));
  return record.result;
}

async function failure(code: string, options: Partial<RunScriptOptions> = {}): Promise<NonNullable<RunRecord['error']>> {
  const record = await run(code, options);
  assert.equal(record.ok, false, `expected a failure, got ${JSON.stringify(record.result)}`);
  return record.error!;
}

describe('store and load (runtime)', () => {
  it('keep JSON values from one run to the next of the same state, and not in another state', async () => {
    const state = createRunState();
    await value(`store('user', { name: 'Ada', tags: ['x', 'y'], n: 1.5, ok: true, none: null })`, { state });
    assert.deepEqual(await value(`return load('user')`, { state }), { name: 'Ada', tags: ['x', 'y'], n: 1.5, ok: true, none: null });
    assert.equal(await value(`return load('user') === undefined`, { state: createRunState() }), true);
    assert.deepEqual(state.keys(), ['user']);
    assert.deepEqual(state.get('user'), { name: 'Ada', tags: ['x', 'y'], n: 1.5, ok: true, none: null });
  });

  it('work within a run that has no state, which starts empty every time', async () => {
    assert.deepEqual(await value(`store('a', [1]); return load('a')`), [1]);
    assert.equal(await value(`return load('a')`), undefined);
  });

  it('store takes a copy and load gives a fresh one each time', async () => {
    const state = createRunState();
    const result = await value(
      `const v = { list: [1] }; store('v', v); v.list.push(2);
       const a = load('v'); a.list.push(3); const b = load('v');
       return [a === b, b.list];`,
      { state },
    );
    assert.deepEqual(result, [false, [1]]);
    assert.deepEqual(state.get('v'), { list: [1] });
  });

  it('store(key, undefined) deletes; load of a missing key is undefined', async () => {
    const state = createRunState();
    await value(`store('a', 1); store('b', 2)`, { state });
    assert.deepEqual(await value(`store('a', undefined); return [load('a') === undefined, load('b'), load('never') === undefined]`, { state }), [
      true,
      2,
      true,
    ]);
    assert.deepEqual(state.keys(), ['b']);
  });

  it('keep what JSON keeps: dates as strings, undefined properties dropped, NaN as null; every JSON type at the top', async () => {
    const state = createRunState();
    assert.deepEqual(
      await value(
        `store('d', { when: new Date(0), gone: undefined, list: [undefined, NaN], nested: { deep: [{}] } });
         for (const [k, v] of [['s', 'text'], ['n', 0], ['f', false], ['z', null], ['e', ''], ['a', []]]) store(k, v);
         return [load('d'), load('s'), load('n'), load('f'), load('z'), load('e'), load('a')];`,
        { state },
      ),
      [{ when: '1970-01-01T00:00:00.000Z', list: [null, null], nested: { deep: [{}] } }, 'text', 0, false, null, '', []],
    );
  });

  it('refuse what is not JSON data with a TypeError that says what and where', async () => {
    const cases: [string, RegExp][] = [
      [`store('k', () => 1)`, /store\("k"\): the value is a function, which is not JSON data/],
      [`store('k', { a: { run() {} } })`, /at key "run", a function/],
      [`store('k', Symbol('s'))`, /a symbol/],
      [`store('k', { n: 10n })`, /a BigInt \(store it as a string\)/],
      [`store('k', new Map([[1, 2]]))`, /a Map \(store Object.fromEntries\(map\)/],
      [`store('k', [new Set([1])])`, /a Set/],
      [`store('k', new Uint8Array(4))`, /binary data/],
      [`store('k', { p: Promise.resolve(1) })`, /a Promise \(await it first\)/],
      [`store('k', new Error('x'))`, /an Error/],
      [`const o = {}; o.self = o; store('k', o)`, /cannot be converted to JSON \(Converting circular structure/],
      [`store('k', { toJSON() { return undefined; } })`, /has no JSON form/],
      [`store(1, 2)`, /store\(key\): the key must be a string, got number/],
      [`load({})`, /load\(key\): the key must be a string, got object/],
    ];
    for (const [code, pattern] of cases) {
      const state = createRunState();
      const error = await failure(code, { state });
      assert.equal(error.name, 'TypeError', code);
      assert.match(error.message, pattern, code);
      assert.equal(error.line, 1, code);
      assert.equal(state.size, 0, code);
    }
  });

  it('fail past each bound with SCRIPT_STATE_LIMIT, catchable in the script, and keep the state as it was', async () => {
    const state = createRunState({ maxValueBytes: 1000, maxTotalBytes: 2500, maxKeys: 3, maxKeyChars: 8 });
    const attempt = (code: string): Promise<unknown> =>
      value(`try { ${code}; return 'stored'; } catch (e) { return [e.name, e.code, e.message, e instanceof Error]; }`, { state });
    assert.equal(await attempt(`store('a', 'x'.repeat(900))`), 'stored');
    const tooBig = (await attempt(`store('b', 'x'.repeat(1001))`)) as unknown[];
    assert.deepEqual(tooBig.slice(0, 2), ['RangeError', 'SCRIPT_STATE_LIMIT']);
    assert.match(tooBig[2] as string, /store\("b"\): the value is at least 1001 characters as JSON, more than the limit of 1000 bytes per value/);
    assert.equal(tooBig[3], true);
    // Bytes, not characters: 400 two-byte characters are 800 bytes of UTF-8, plus quotes.
    assert.match(((await attempt(`store('b', 'é'.repeat(500))`)) as string[])[2]!, /1002 bytes as JSON, more than the limit of 1000 bytes/);
    assert.match(((await attempt(`store('long-key!', 1)`)) as string[])[2]!, /the key is 9 characters, more than the limit of 8/);
    assert.equal(await attempt(`store('b', 'x'.repeat(900))`), 'stored');
    assert.match(((await attempt(`store('c', 'x'.repeat(900))`)) as string[])[2]!, /the state would hold \d+ bytes, more than its limit of 2500 bytes in all/);
    assert.equal(await attempt(`store('c', 1)`), 'stored');
    assert.match(((await attempt(`store('d', 1)`)) as string[])[2]!, /holds 3 keys, the most it may \(3\)/);
    // Replacing a key counts its new size only; deleting frees its room.
    assert.equal(await attempt(`store('a', 'y'.repeat(900))`), 'stored');
    assert.equal(await attempt(`store('c', undefined); store('d', 1)`), 'stored');
    assert.deepEqual(state.keys().sort(), ['a', 'b', 'd']);
    assert.equal(state.get('a'), 'y'.repeat(900));
  });

  it('refuse a value nesting past 256 levels (what every value crossing into the isolate is held to)', async () => {
    const error = await failure(`let v = 1; for (let i = 0; i < 300; i++) v = [v]; store('deep', v)`);
    assert.equal(error.code, 'SCRIPT_STATE_LIMIT');
    assert.match(error.message, /nests more than 256 levels/);
    assert.equal(
      await value(`let v = 1; for (let i = 0; i < 200; i++) v = { v }; store('deep', v); let d = load('deep'), n = 0; while (d.v) { d = d.v; n++; } return n`),
      200,
    );
  });

  it('keys are only keys: __proto__ and constructor pollute nothing, here or in the embedder', async () => {
    const state = createRunState();
    const result = await value(
      `store('__proto__', { polluted: true }); store('constructor', { prototype: { polluted: true } }); store('toString', 1);
       return [load('__proto__'), load('constructor'), load('toString'), ({}).polluted === undefined, load('hasOwnProperty') === undefined];`,
      { state },
    );
    assert.deepEqual(result, [{ polluted: true }, { prototype: { polluted: true } }, 1, true, true]);
    assert.deepEqual(state.keys(), ['__proto__', 'constructor', 'toString']);
    const saved = JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    const again = createRunState({ values: saved });
    assert.deepEqual(again.get('__proto__'), { polluted: true });
    assert.equal(await value(`return load('__proto__').polluted`, { state: again }), true);
  });

  it('load measures the isolate before copying: a value that cannot fit fails that load, and the run goes on', async () => {
    const state = createRunState();
    // 1 MB stored from a roomy run: cheap to keep, 16 MB to parse in the worst case.
    const big = JSON.stringify(Array.from({ length: 500_000 }, (_, i) => i % 10));
    assert.ok(big.length < 1_048_576);
    state.set('big', JSON.parse(big));
    const result = await value(`try { load('big'); return 'loaded'; } catch (e) { return [e.name, e.code, e.message]; }`, { state, memoryLimitMb: 8 });
    assert.deepEqual((result as string[]).slice(0, 2), ['RangeError', 'SCRIPT_STATE_LIMIT']);
    assert.match(
      (result as string[])[2]!,
      /load\("big"\): the value is 1\.0 MB .* would need about .* MB of this run's memory .* of its 8\.0 MB memory limit free\. Nothing was copied/,
    );
    // The same value in a run with room.
    assert.equal(await value(`return load('big').length`, { state, memoryLimitMb: 64 }), 500_000);
  });

  it('load collects garbage first when only that makes room', async () => {
    const state = createRunState();
    state.set('text', 'x'.repeat(900_000));
    // A dead array of doubles fills most of an 8 MB heap (5.6 MB); the value fits once it is collected.
    const result = await value(
      `let junk = new Array(700000).fill(1.5); junk = null;
       return load('text').length;`,
      { state, memoryLimitMb: 8 },
    );
    assert.equal(result, 900_000);
  });

  it('a run that fails keeps what it stored before failing; a store after the run ended changes nothing', async () => {
    const state = createRunState();
    const error = await failure(`store('step', 1); throw new Error('later')`, { state });
    assert.equal(error.message, 'later');
    assert.equal(state.get('step'), 1);
    const bridge = new StateBridge(state as StateValues, () => Number.MAX_SAFE_INTEGER, 128);
    assert.equal(bridge.handle('store', 'late', '1'), undefined);
    bridge.close();
    assert.match(bridge.handle('store', 'later', '1')!, /^!.*the run has ended; its state takes no more changes/);
    assert.deepEqual(state.keys(), ['step', 'late']);
  });

  it('the runtime keeps nothing of a run once it ends: its state (and hooks) go when the caller drops them', async () => {
    // isolated-vm frees a disposed isolate's Callbacks lazily: they reached the run's state until this was fixed.
    let state: RunState | undefined = createRunState();
    let onOutput: (() => void) | undefined = () => {};
    const refs = [new WeakRef(state), new WeakRef(onOutput)];
    await value(`store('v', 'x'.repeat(100000)); text('done')`, { state, onOutput });
    state = undefined;
    onOutput = undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const gc = (globalThis as { gc?: () => void }).gc;
    assert.ok(gc, 'run mocha with --expose-gc');
    gc();
    gc();
    assert.deepEqual(
      refs.map((ref) => ref.deref() === undefined),
      [true, true],
    );
  });

  it('refuses a state that createRunState did not make', async () => {
    const lookalike = { get: () => 1, set: () => {}, keys: () => [] } as unknown as RunState;
    await assert.rejects(run('return 1', { state: lookalike }), /options\.state must be a state made by createRunState\(\)/);
  });

  it('createRunState checks its options and its starting values', () => {
    assert.throws(() => createRunState({ maxValueBytes: 0 }), /options\.maxValueBytes must be an integer from 1/);
    assert.throws(() => createRunState({ values: { k: 'x'.repeat(2_000_000) } }), { code: 'SCRIPT_STATE_LIMIT' });
    assert.throws(() => createRunState().set('f', () => 1), /must be JSON data, got function/);
    const state = createRunState({ values: { a: 1 } });
    assert.ok(state instanceof StateValues);
    assert.deepEqual(JSON.parse(JSON.stringify(state)), { a: 1 });
    assert.equal(state.bytes, 2);
  });

  it('a snapshot travels and comes back as changes (a worker process copy)', () => {
    const serve = new StateValues();
    serve.set('a', 1);
    serve.set('b', 2);
    const copy = StateValues.fromSnapshot(structuredClone(serve.snapshot()));
    copy.set('a', 10);
    copy.delete('b');
    copy.set('c', [3]);
    const changes = copy.takeChanges();
    assert.deepEqual(changes, [
      ['a', '10'],
      ['b', null],
      ['c', '[3]'],
    ]);
    assert.deepEqual(serve.apply(changes), []);
    assert.deepEqual(serve.toJSON(), Object.assign(Object.create(null), { a: 10, c: [3] }));
    // A change that no longer fits here is skipped, and said.
    const small = new StateValues({ maxKeys: 1 });
    small.set('x', 1);
    assert.deepEqual(small.apply([['y', '2']]), ['y']);
  });
});
