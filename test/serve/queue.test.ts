import assert from 'node:assert/strict';
import { RunQueue } from '../../src/serve/queue.js';

describe('serve: RunQueue', () => {
  it('runs at most `limit` at once, in FIFO order, and a waiter aborted while queued never runs', async () => {
    const queue = new RunQueue(1);
    const order: string[] = [];
    let release!: () => void;
    const first = queue.run(() => new Promise<void>((r) => (release = r)).then(() => order.push('first')));
    const aborted = new AbortController();
    const skipped = queue.run(async () => order.push('skipped'), aborted.signal);
    const second = queue.run(async () => order.push('second'));
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
    await assert.rejects(queue.run(async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await queue.run(async () => 'next'), 'next');
  });
});
