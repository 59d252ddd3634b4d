import assert from 'node:assert/strict';
import { errorLine, runResult } from '../../src/serve/result.js';

describe('serve: runResult', () => {
  it('keeps outputs in order, then the result, the error and the logs; structuredContent has no outputs', () => {
    const result = runResult({
      ok: false,
      outputs: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
      logs: [
        { level: 'log', text: 'one' },
        { level: 'error', text: 'two' },
      ],
      error: { name: 'TypeError', message: 'x is not a function', code: 'SCRIPT_ERROR', line: 4, column: 3 },
      durationMs: 5,
      calls: 2,
    });
    assert.deepEqual(result.content, [
      { type: 'text', text: 'a' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: 'TypeError [SCRIPT_ERROR] at line 4, column 3: x is not a function' },
      { type: 'text', text: 'console:\none\n[error] two' },
    ]);
    assert.equal(result.isError, true);
    assert.deepEqual(Object.keys(result.structuredContent ?? {}).sort(), ['calls', 'durationMs', 'error', 'ok']);
  });
  it('always has a block, and a position-less error reads without one', () => {
    assert.equal(runResult({ ok: true, outputs: [], logs: [], durationMs: 1, calls: 0 }).content.length, 1);
    assert.equal(errorLine({ name: 'BerryError', message: 'too slow', code: 'SCRIPT_TIMEOUT' }), 'BerryError [SCRIPT_TIMEOUT]: too slow');
  });
});
