import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type IsolatedVm from 'isolated-vm';
import { IsolatePool, runScript, type HostFunction, type RunRecord, type RunScriptOptions } from '../../src/runtime/index.js';
import { loadIsolatedVm, type Ivm } from '../../src/runtime/load-ivm.js';
import type { SandboxSpec } from '../../src/runtime/warm-pool.js';

const echo: HostFunction = async (args) => args;
const options: RunScriptOptions = { functions: { echo }, timeoutMs: 10_000 };
const run = (pool: IsolatePool, code: string, extra: Partial<RunScriptOptions> = {}): Promise<RunRecord> => runScript(code, { ...options, ...extra }, pool);

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** isolated-vm itself, with every Isolate it makes recorded. */
async function recordingIvm(): Promise<{ ivm: Ivm; made: IsolatedVm.Isolate[] }> {
  const real = await loadIsolatedVm();
  const made: IsolatedVm.Isolate[] = [];
  class Recorded extends real.Isolate {
    constructor(...args: ConstructorParameters<typeof real.Isolate>) {
      super(...args);
      made.push(this);
    }
  }
  return { ivm: Object.create(real, { Isolate: { value: Recorded } }) as Ivm, made };
}

const SPEC: SandboxSpec = {
  memoryLimitMb: 128,
  config: { names: ['echo'], remaining: 1024, resultLimit: 1024, argumentLimit: 1024, argumentCode: 'X', maxCalls: 4, fillLimit: 1024, flatLimit: 134_217_728 },
};

describe('warm isolate pool', () => {
  it('hands each warm sandbox out once: a run never sees what an earlier run left in its isolate', async () => {
    const pool = new IsolatePool(2);
    try {
      assert.equal((await run(pool, 'globalThis.left = 1; return typeof left')).result, 'number');
      await until(() => pool.idle === 2, 'the refill');
      const seen = await Promise.all([run(pool, 'const was = typeof left; globalThis.left = 2; return was'), run(pool, 'return typeof left')]);
      assert.deepEqual(
        seen.map((r) => r.result),
        ['undefined', 'undefined'],
      );
      assert.deepEqual(pool.stats, { hits: 2, misses: 1 });
    } finally {
      pool.close();
    }
  });

  it('refills after a run ends, up to its size and no further', async () => {
    const pool = new IsolatePool(3);
    try {
      assert.equal(pool.idle, 0);
      await run(pool, 'return 1');
      assert.deepEqual(pool.stats, { hits: 0, misses: 1 });
      await until(() => pool.idle === 3, 'the refill');
      await sleep(50);
      assert.equal(pool.idle, 3);
      const record = await run(pool, 'return await tools.echo(41) + 1');
      assert.equal(record.result, 42);
      assert.deepEqual(pool.stats, { hits: 1, misses: 1 });
      await until(() => pool.idle === 3, 'the second refill');
    } finally {
      pool.close();
    }
  });

  it('under a burst, runs beyond the warm ones make a fresh isolate, and all of them run', async () => {
    const pool = new IsolatePool(2);
    try {
      await run(pool, 'return 0');
      await until(() => pool.idle === 2, 'the refill');
      const records = await Promise.all(Array.from({ length: 6 }, (_, i) => run(pool, `return await tools.echo(${i})`)));
      assert.deepEqual(
        records.map((r) => r.result),
        [0, 1, 2, 3, 4, 5],
      );
      assert.deepEqual(pool.stats, { hits: 2, misses: 5 });
    } finally {
      pool.close();
    }
  });

  it('a run never gets a sandbox made for other limits', async () => {
    const pool = new IsolatePool(2);
    try {
      await run(pool, 'return 0');
      await until(() => pool.idle === 2, 'the refill');
      // Made for 128 MB: this run asks for 16 and must hit its own limit.
      const big = await run(pool, 'const keep = []; for (let i = 0; i < 64; i++) keep.push(new Array(1024 * 1024 / 8).fill(i)); return keep.length', {
        memoryLimitMb: 16,
      });
      assert.equal(big.ok, false);
      assert.equal(big.error?.code, 'SCRIPT_MEMORY_LIMIT');
      // Another output limit is another bootstrap: the warm sandboxes are not for it either.
      const small = await run(pool, 'return "x".repeat(200)', { outputLimitBytes: 100 });
      assert.equal(small.error?.code, 'SCRIPT_ERROR');
      assert.deepEqual(pool.stats, { hits: 0, misses: 3 });
    } finally {
      pool.close();
    }
  });

  it('keeps only what the last run asked for: sandboxes for other limits make room', async () => {
    const { ivm, made } = await recordingIvm();
    const pool = new IsolatePool(2);
    try {
      assert.equal(pool.take(ivm, SPEC), undefined);
      pool.refill();
      await until(() => pool.idle === 2, 'the refill');
      const other = { ...SPEC, memoryLimitMb: 64 };
      assert.equal(pool.take(ivm, other), undefined, 'none made for 64 MB yet');
      pool.refill();
      await until(() => made.length === 4, 'two made for 64 MB');
      assert.equal(pool.idle, 2);
      assert.deepEqual(
        made.slice(0, 2).map((i) => i.isDisposed),
        [true, true],
        'the 128 MB ones were disposed to make room',
      );
      const taken = pool.take(ivm, other);
      assert.equal(taken?.isolate, made[3]);
      taken?.isolate.dispose();
    } finally {
      pool.close();
    }
  });

  it('close disposes every waiting isolate, stops the refill, and later takes get none', async () => {
    const { ivm, made } = await recordingIvm();
    const pool = new IsolatePool(3);
    pool.take(ivm, SPEC);
    pool.refill();
    await until(() => made.length >= 1, 'the first sandbox');
    pool.close();
    await sleep(30);
    assert.ok(made.length < 3, 'the refill stopped at close');
    assert.ok(
      made.every((isolate) => isolate.isDisposed),
      'no isolate left alive',
    );
    assert.equal(pool.idle, 0);
    assert.equal(pool.take(ivm, SPEC), undefined);
    pool.refill();
    await sleep(20);
    assert.equal(pool.idle, 0);
  });

  it('size 0 keeps none, and a bad size is a TypeError', async () => {
    const pool = new IsolatePool(0);
    assert.equal((await run(pool, 'return 1')).result, 1);
    await sleep(20);
    assert.equal(pool.idle, 0);
    assert.throws(() => new IsolatePool(-1), TypeError);
    assert.throws(() => new IsolatePool(1.5), TypeError);
    assert.throws(() => new IsolatePool(1000), TypeError);
  });
});
