import assert from 'node:assert/strict';
import { loneClient, RunQueue, type RunClient, type RunHolder } from '../../src/serve/queue.js';

const A = loneClient(64, 'a');
const client = (holder: RunHolder, maxRunning: number): RunClient => ({ holder, maxRunning });
/** A run that starts, records its name and waits for its gate. */
function gated(started: string[], gates: Map<string, () => void>) {
  return (name: string) => () => {
    started.push(name);
    return new Promise<void>((r) => gates.set(name, r));
  };
}

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
    await assert.rejects(
      queue.run(A, async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await queue.run(A, async () => 'next'), 'next');
  });

  it('gives freed slots to the clients in turn: a second client waits behind at most one run of the first', async () => {
    const queue = new RunQueue(1);
    const B = loneClient(64, 'b');
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
    const B = loneClient(64, 'b');
    let release!: () => void;
    const first = queue.run(A, () => new Promise<void>((r) => (release = r)));
    const waiting = [queue.run(A, async () => 'a2'), queue.run(A, async () => 'a3')];
    await assert.rejects(
      queue.run(A, async () => 'a4'),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'SERVE_QUEUE_FULL');
        assert.match(error.message, /2 runs waiting for a free slot \(it may execute 1 run at once, the server 1\)/);
        return true;
      },
    );
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

  it("keeps a client to its cap: another client's run starts at once however long the first one's take", async () => {
    const queue = new RunQueue(4);
    const holder: RunHolder = { name: 'one token', maxRunning: 4 };
    const [hog, other] = [client(holder, 3), client(holder, 3)];
    const started: string[] = [];
    const gates = new Map<string, () => void>();
    const run = gated(started, gates);
    const hogs = [1, 2, 3, 4, 5].map((n) => queue.run(hog, run(`hog${n}`)));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, ['hog1', 'hog2', 'hog3']);
    assert.equal(queue.queued, 2);
    const quick = queue.run(other, async () => 'quick');
    assert.equal(await quick, 'quick');
    // Only the hog's own runs ending let its waiting ones start.
    gates.get('hog1')!();
    await hogs[0];
    assert.deepEqual(started, ['hog1', 'hog2', 'hog3', 'hog4']);
    for (const name of ['hog2', 'hog3', 'hog4']) gates.get(name)!();
    await new Promise((r) => setImmediate(r));
    gates.get('hog5')!();
    await Promise.all(hogs);
    assert.equal(queue.running, 0);
    assert.equal(queue.busy(hog), false);
  });

  it("keeps a holder to its cap across all its clients, so one holder's many sessions leave the others their room", async () => {
    const queue = new RunQueue(4);
    const mallory: RunHolder = { name: 'mallory', maxRunning: 3 };
    const alice: RunHolder = { name: 'alice', maxRunning: 3 };
    const started: string[] = [];
    const gates = new Map<string, () => void>();
    const run = gated(started, gates);
    // Ten sessions of one holder, two runs each: three execute, the rest wait.
    const sessions = Array.from({ length: 10 }, () => client(mallory, 3));
    const hogs = sessions.flatMap((s, i) => [queue.run(s, run(`m${i}a`)), queue.run(s, run(`m${i}b`))]);
    assert.equal(queue.running, 3);
    assert.equal(queue.runningOf(mallory), 3);
    assert.equal(await queue.run(client(alice, 3), async () => 'alice'), 'alice');
    for (const gate of gates.values()) gate();
    for (let i = 0; i < 10 && started.length < 20; i++) {
      await new Promise((r) => setImmediate(r));
      for (const gate of gates.values()) gate();
    }
    await Promise.all(hogs);
    assert.equal(started.length, 20);
  });

  it('gives freed slots to holders in turn, then to their clients in turn: many clients of one holder take no more turns than one', async () => {
    const queue = new RunQueue(1);
    const mallory: RunHolder = { name: 'mallory', maxRunning: 1 };
    const alice: RunHolder = { name: 'alice', maxRunning: 1 };
    const started: string[] = [];
    const gates = new Map<string, () => void>();
    const run = gated(started, gates);
    const first = queue.run(client(mallory, 1), run('m0'));
    const runs = [1, 2, 3, 4].map((n) => queue.run(client(mallory, 1), run(`m${n}`)));
    const mine = client(alice, 1);
    runs.push(queue.run(mine, run('a1')), queue.run(mine, run('a2')));
    while (started.length < 7) {
      await new Promise((r) => setImmediate(r));
      gates.get(started.at(-1)!)?.();
    }
    await Promise.all([first, ...runs]);
    assert.deepEqual(started, ['m0', 'm1', 'a1', 'm2', 'a2', 'm3', 'm4']);
  });

  it('a waiter aborted while its holder is at its cap leaves no turn behind', async () => {
    const queue = new RunQueue(2);
    const holder: RunHolder = { name: 'h', maxRunning: 1 };
    let release!: () => void;
    const first = queue.run(client(holder, 1), () => new Promise<void>((r) => (release = r)));
    const aborted = new AbortController();
    const waiting = queue.run(client(holder, 1), async () => 'never', aborted.signal);
    aborted.abort();
    await assert.rejects(waiting, (error: Error & { code?: string }) => error.code === 'SCRIPT_ABORTED');
    assert.equal(queue.queued, 0);
    release();
    await first;
    assert.equal(queue.running, 0);
    assert.equal(await queue.run(client(holder, 1), async () => 'next'), 'next');
  });
});
