import assert from 'node:assert/strict';
import { normalizeRunOptions } from '../../src/runtime/options.js';
import type { RunScriptOptions } from '../../src/runtime/index.js';

const echo = async (args: unknown): Promise<unknown> => args;

describe('normalizeRunOptions', () => {
  it('fills the defaults', () => {
    const options = normalizeRunOptions({ functions: { echo } });
    assert.equal(options.timeoutMs, 300_000);
    assert.equal(options.memoryLimitMb, 128);
    assert.equal(options.outputLimitBytes, 1_048_576);
    assert.equal(options.filename, 'script.js');
    assert.deepEqual(options.names, ['echo']);
    assert.equal(Object.getPrototypeOf(options.functions), null);
  });

  it('rejects bad values with a TypeError naming the option', () => {
    const bad: Array<[unknown, RegExp]> = [
      [null, /options must be an object/],
      [{}, /options\.functions must be an object/],
      [{ functions: { echo: 'no' } }, /options\.functions\.echo must be a function/],
      [{ functions: { 'a-b': echo } }, /"a-b" is not a valid name/],
      [{ functions: {}, timeoutMs: 0 }, /options\.timeoutMs must be a number from 1/],
      [{ functions: {}, timeoutMs: Number.NaN }, /options\.timeoutMs/],
      [{ functions: {}, memoryLimitMb: 4 }, /options\.memoryLimitMb must be an integer from 8/],
      [{ functions: {}, memoryLimitMb: 64.5 }, /options\.memoryLimitMb/],
      [{ functions: {}, outputLimitBytes: -1 }, /options\.outputLimitBytes/],
      [{ functions: {}, signal: {} }, /options\.signal must be an AbortSignal/],
      [{ functions: {}, onProgress: 1 }, /options\.onProgress must be a function/],
      [{ functions: {}, filename: 'a\nb' }, /options\.filename/],
      [{ functions: {}, filename: '' }, /options\.filename/],
    ];
    for (const [options, message] of bad) {
      assert.throws(
        () => normalizeRunOptions(options as RunScriptOptions),
        (error: unknown) => error instanceof TypeError && message.test(error.message),
      );
    }
  });

  it('does not read inherited function names', () => {
    const functions = Object.create({ inherited: echo }) as Record<string, typeof echo>;
    functions['own'] = echo;
    assert.deepEqual(normalizeRunOptions({ functions }).names, ['own']);
  });
});
