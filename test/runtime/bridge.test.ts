import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { HostBridge, shapeHostError } from '../../src/runtime/bridge.js';
import type { HostFunction } from '../../src/runtime/index.js';

const table = (functions: Record<string, HostFunction>): Record<string, HostFunction> => Object.assign(Object.create(null), functions);

describe('HostBridge', () => {
  it('answers JSON envelopes and never rejects', async () => {
    const bridge = new HostBridge(
      table({
        echo: async (args) => args,
        nothing: async () => undefined,
        fail: async () => {
          throw Object.assign(new TypeError('bad'), { code: 'X_CODE', stack: 'at /host/file.js:1:1', extra: 1 });
        },
        sync: (() => {
          throw new Error('thrown synchronously');
        }) as unknown as HostFunction,
      }),
    );
    assert.equal(await bridge.dispatch('echo', '{"a":[1]}'), '{"ok":true,"value":{"a":[1]}}');
    assert.equal(await bridge.dispatch('echo', undefined), '{"ok":true}');
    assert.equal(await bridge.dispatch('nothing', '{}'), '{"ok":true}');
    assert.equal(await bridge.dispatch('fail', '{}'), '{"ok":false,"error":{"name":"TypeError","message":"bad","code":"X_CODE"}}');
    assert.equal(await bridge.dispatch('sync', '{}'), '{"ok":false,"error":{"name":"Error","message":"thrown synchronously"}}');
    assert.match(await bridge.dispatch('toString', '{}'), /"tools\.toString is not a function"/);
    assert.match(await bridge.dispatch('echo', '{bad'), /arguments are not valid JSON/);
    assert.equal(bridge.calls, 5);
  });

  it('aborts the signals of calls in flight on close, and refuses later calls', async () => {
    let signal: AbortSignal | undefined;
    const bridge = new HostBridge(
      table({
        wait: async (_args, context) => {
          signal = context.signal;
          await sleep(10_000, undefined, { signal: context.signal }).catch(() => {});
          return 'stopped';
        },
      }),
    );
    const pending = bridge.dispatch('wait', '{}');
    await sleep(5);
    const reason = new Error('run over');
    bridge.close(() => reason);
    assert.equal(signal?.aborted, true);
    assert.equal(signal?.reason, reason);
    assert.equal(await pending, '{"ok":true,"value":"stopped"}');
    assert.equal(await bridge.dispatch('wait', '{}'), '{"ok":false,"error":{"name":"Error","message":"run over"}}');
  });

  it('drops progress after the call settled, and survives a throwing listener', async () => {
    const events: unknown[] = [];
    let report: ((p: { progress: number }) => void) | undefined;
    const bridge = new HostBridge(
      table({
        work: async (_args, context) => {
          report = context.onProgress;
          context.onProgress({ progress: 1 });
          return 'ok';
        },
      }),
      {
        onProgress: (p) => {
          events.push(p);
          throw new Error('listener failed');
        },
      },
    );
    assert.equal(await bridge.dispatch('work', '{}'), '{"ok":true,"value":"ok"}');
    report?.({ progress: 2 });
    assert.deepEqual(events, [{ fn: 'work', call: 1, progress: 1 }]);
  });

  it('numbers calls, passes a label on, and says when a call that reported progress ends', async () => {
    const events: unknown[] = [];
    const ended: unknown[] = [];
    const bridge = new HostBridge(
      table({
        quiet: async () => 'q',
        work: async (args, context) => {
          context.onProgress({ progress: 1, total: 2, label: `srv/${String(args)}` });
          return 'ok';
        },
      }),
      { onProgress: (p) => events.push(p), onCallEnd: (c) => ended.push(c) },
    );
    await bridge.dispatch('quiet', '{}');
    await Promise.all([bridge.dispatch('work', '"a"'), bridge.dispatch('work', '"b"')]);
    assert.deepEqual(events, [
      { fn: 'work', call: 2, label: 'srv/a', progress: 1, total: 2 },
      { fn: 'work', call: 3, label: 'srv/b', progress: 1, total: 2 },
    ]);
    assert.deepEqual(ended, [
      { fn: 'work', call: 2 },
      { fn: 'work', call: 3 },
    ]);
  });
});

describe('shapeHostError', () => {
  it('keeps name, message and a string code; describes non-Errors', () => {
    assert.deepEqual(shapeHostError(Object.assign(new RangeError('r'), { code: 42 })), { name: 'RangeError', message: 'r' });
    assert.deepEqual(shapeHostError('text'), { name: 'Error', message: 'text' });
    assert.deepEqual(shapeHostError({ reason: 'x' }), { name: 'Error', message: '{"reason":"x"}' });
    assert.deepEqual(shapeHostError(null), { name: 'Error', message: 'null' });
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
      },
    );
    assert.deepEqual(shapeHostError(hostile), { name: 'Error', message: 'A host function failed with a value that cannot be described' });
  });
});
