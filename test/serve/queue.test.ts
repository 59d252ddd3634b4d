import assert from 'node:assert/strict';
import { RunQueue } from '../../src/serve/queue.js';

const A = { client: 'a' };

describe('serve: RunQueue', () => {
  it('runs at most `limit` at once, in FIFO order, and a waiter aborted while queued never runs', async () => {
    const queue = new RunQueue(1);
    const order: string[] = [];
    let release!: () => void;
    const first = queue.run(A, () => new Promise<void>((r) => (release = r)).then(() => order.push('first')));
    const aborted = new AbortController();
    const skipped = queue.run(A, async () => order.push('skipped'), aborted.signal);
    const second = queue.run(A, async () => order.push('second'));
    assert.equal(queue.running, 1);
    assert.equal(queue.queued, 2);
    aborted.abort();
    await assert.rejects(skipped, (error: Error & { code?: string }) => error.code === 'SCRIPT_ABORTED');
    assert.equal(queue.queued, 1);
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['first', 'second']);
    assert.equal(queue.running, 0);
  });

  it('frees the slot when a run throws', async () => {
    const queue = new RunQueue(1);
    await assert.rejects(queue.run(A, async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await queue.run(A, async () => 'next'), 'next');
  });

  it('gives freed slots to the clients in turn: a second client waits behind at most one run of the first', async () => {
    const queue = new RunQueue(1);
    const B = { client: 'b' };
    const started: string[] = [];
    const gates: (() => void)[] = [];
    const slow = (name: string) => () => {
      started.push(name);
      return new Promise<void>((r) => gates.push(r));
    };
    const runs = [1, 2, 3, 4, 5].map((n) => queue.run(A, slow(`a${n}`)));
    const b = queue.run(B, async () => {
      started.push('b1');
    });
    const a6 = queue.run(A, slow('a6'));
    // Let every run in turn finish as soon as it started.
    while (started.length < 7) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    await Promise.all([...runs, b, a6]);
    assert.deepEqual(started, ['a1', 'a2', 'b1', 'a3', 'a4', 'a5', 'a6']);
  });

  it('refuses a run at once with SERVE_QUEUE_FULL when its client has maxQueued waiting; other clients still queue', async () => {
    const queue = new RunQueue(1, 2);
    const B = { client: 'b' };
    let release!: () => void;
    const first = queue.run(A, () => new Promise<void>((r) => (release = r)));
    const waiting = [queue.run(A, async () => 'a2'), queue.run(A, async () => 'a3')];
    await assert.rejects(queue.run(A, async () => 'a4'), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'SERVE_QUEUE_FULL');
      assert.match(error.message, /2 runs waiting/);
      return true;
    });
    const b = queue.run(B, async () => 'b1');
    assert.equal(queue.queued, 3);
    assert.equal(queue.busy(A), true);
    assert.equal(queue.busy(B), true);
    release();
    assert.deepEqual(await Promise.all([...waiting, b]), ['a2', 'a3', 'b1']);
    await first;
    assert.equal(queue.busy(A), false);
    assert.equal(queue.busy(B), false);
  });
});
