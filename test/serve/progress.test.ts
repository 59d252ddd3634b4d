import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProgressReporter } from '../../src/serve/progress.js';

describe('serve: ProgressReporter', () => {
  it('sends at once, then at most one per interval with the latest message, counting up from 1', async () => {
    const sent: [number, string][] = [];
    const reporter = new ProgressReporter((p, m) => sent.push([p, m]), 40);
    reporter.report('a');
    reporter.report('b');
    reporter.report('c');
    assert.deepEqual(sent, [[1, 'a']]);
    await sleep(80);
    assert.deepEqual(sent, [
      [1, 'a'],
      [2, 'c'],
    ]);
    for (let i = 0; i < 1000; i++) reporter.report(`m${i}`);
    reporter.close();
    reporter.report('after close');
    // m0 goes at once if the interval since 'c' has passed, else it waits and m999 replaces it.
    const tail = sent.slice(2).map(([, m]) => m);
    assert.ok(JSON.stringify(tail) === '["m0","m999"]' || JSON.stringify(tail) === '["m999"]', JSON.stringify(tail));
    assert.deepEqual(
      sent.map(([p]) => p),
      sent.map((_, i) => i + 1),
    );
    await sleep(60);
    assert.ok(sent.every(([, m]) => m !== 'after close'));
  });
});
