import assert from 'node:assert/strict';
import { createRunState } from '../../src/index.js';
import { everythingPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

describe('host.run: store and load with the embedder’s state', function () {
  this.timeout(60_000);
  const t = useTestHost({ docs: { command: process.execPath, args: [everythingPath] } }, { options: { configPath: 'mcp.json' } });

  it('keeps a tool’s result from one run for the next of the same conversation', async () => {
    const conversation = createRunState();
    const first = await t.host.run(
      `const r = await tools.mcp_call({ server: 'docs', tool: 'echo', arguments: { message: 'remember me' } });
       store('echo', r.content[0].text);
       return 'stored';`,
      { state: conversation },
    );
    assert.equal(first.ok, true, JSON.stringify(first.error));
    const second = await t.host.run(`return load('echo')`, { state: conversation });
    assert.equal(second.result, 'Echo: remember me');
    // The host keeps nothing: a run without the state sees nothing.
    assert.equal((await t.host.run(`return load('echo') === undefined`)).result, true);
  });

  it('two conversations’ states are independent, even when their runs overlap', async () => {
    const a = createRunState();
    const b = createRunState();
    await Promise.all([
      t.host.run(`store('who', 'a'); await tools.mcp_list({}); store('n', 1)`, { state: a }),
      t.host.run(`store('who', 'b'); await tools.mcp_list({}); store('n', 2)`, { state: b }),
    ]);
    assert.deepEqual([a.get('who'), a.get('n'), b.get('who'), b.get('n')], ['a', 1, 'b', 2]);
    const read = await Promise.all([t.host.run(`return load('who')`, { state: a }), t.host.run(`return load('who')`, { state: b })]);
    assert.deepEqual(
      read.map((r) => r.result),
      ['a', 'b'],
    );
  });

  it('the embedder reads, writes and saves the state between runs', async () => {
    const state = createRunState({ values: { plan: ['read', 'write'] } });
    assert.deepEqual((await t.host.run(`const plan = load('plan'); store('done', plan[0]); return plan.length`, { state })).result, 2);
    assert.equal(state.get('done'), 'read');
    state.set('done', undefined);
    const saved = JSON.stringify(state);
    const restored = createRunState({ values: JSON.parse(saved) as Record<string, unknown> });
    assert.deepEqual((await t.host.run(`return [load('plan'), load('done')]`, { state: restored })).result, [['read', 'write'], null]);
  });

  it('no false refusal: what real scripts keep is stored and loaded unchanged', async () => {
    const state = createRunState();
    const record = await t.host.run(
      `const image = await tools.mcp_call({ server: 'docs', tool: 'get-tiny-image', arguments: {} });
       const sum = await tools.mcp_call({ server: 'docs', tool: 'get-sum', arguments: { a: 2, b: 40 } });
       const listed = await tools.mcp_list({});
       class Point { constructor(x, y) { this.x = x; this.y = y; } }
       const bare = Object.create(null); bare.k = 'v';
       const values = {
         image, sum, listed, point: new Point(1, 2), bare, when: { at: new Date(0) },
         text: 'naïve 🍣 \u2028 "quoted" \\ back', numbers: [-0, 1e308, 5e-324, -1, 0.1], empty: {}, list: [],
         nested: { a: [{ b: [{ c: null }] }] }, edge: 'x'.repeat(1_048_574),
       };
       for (const [key, value] of Object.entries(values)) store(key, value);
       store('', 'empty key'); store(' spaced key ✓', true); store('k'.repeat(256), 'longest key');
       const same = Object.keys(values).every((key) => JSON.stringify(load(key)) === JSON.stringify(values[key]));
       return [same, load(''), load(' spaced key ✓'), load('k'.repeat(256)), load('image').content.some((b) => b.type === 'image' && b.data.length > 100)];`,
      { state },
    );
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.deepEqual(record.result, [true, 'empty key', true, 'longest key', true]);
    assert.equal(state.size, 15);
  });

  it('a run past the state’s bound fails with SCRIPT_STATE_LIMIT and keeps the state as it was', async () => {
    const state = createRunState({ maxTotalBytes: 10_000 });
    const record = await t.host.run(`store('a', 'x'.repeat(6000)); store('b', 'y'.repeat(6000));`, { state });
    assert.equal(record.ok, false);
    assert.equal(record.error?.code, 'SCRIPT_STATE_LIMIT');
    assert.equal(record.error?.line, 1);
    assert.deepEqual(state.keys(), ['a']);
  });
});
