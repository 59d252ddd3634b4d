import assert from 'node:assert/strict';
import { BUDGET_SPENT, ENTRY_OVERHEAD_BYTES as O, MAX_ENTRIES, OutputCollector } from '../../src/runtime/outputs.js';

describe('OutputCollector', () => {
  it('hands each kept entry to the listener as it arrives, and survives a throwing listener', () => {
    const seen: unknown[] = [];
    const outputs = new OutputCollector(1000, (entry) => {
      seen.push(entry);
      throw new Error('listener bug');
    });
    outputs.accept('text', 'a');
    outputs.accept('warn', 'b');
    outputs.accept('nonsense', 'c');
    assert.deepEqual(seen, [
      { kind: 'output', output: { type: 'text', text: 'a' } },
      { kind: 'log', log: { level: 'warn', text: 'b' } },
    ]);
  });

  it('keeps entries while they fit and answers the bytes left', () => {
    const outputs = new OutputCollector(10 + 3 * O);
    assert.equal(outputs.accept('text', 'abc'), 7 + 2 * O);
    assert.equal(outputs.accept('warn', 'de'), 5 + O);
    assert.equal(outputs.accept('text', 'fghij'), 0);
    assert.deepEqual(outputs.outputs, [
      { type: 'text', text: 'abc' },
      { type: 'text', text: 'fghij' },
    ]);
    assert.deepEqual(outputs.logs, [{ level: 'warn', text: 'de' }]);
  });

  it('cuts the entry that crosses the limit on a character boundary, adds one notice, then drops', () => {
    const outputs = new OutputCollector(10 + O);
    assert.equal(outputs.accept('log', 'éééééé'), BUDGET_SPENT); // 12 bytes
    assert.equal(outputs.accept('text', 'later'), BUDGET_SPENT);
    assert.deepEqual(outputs.logs, [{ level: 'log', text: `ééééé\n[output truncated: limit of ${10 + O} bytes reached]` }]);
    assert.deepEqual(outputs.outputs, []);
  });

  it('never splits a surrogate pair', () => {
    const outputs = new OutputCollector(6 + O);
    outputs.accept('text', '😀😀'); // 8 bytes
    assert.deepEqual(outputs.outputs, [{ type: 'text', text: `😀\n[output truncated: limit of ${6 + O} bytes reached]` }]);
  });

  it('counts image data and mimeType; an image that does not fit becomes the notice', () => {
    const outputs = new OutputCollector(30 + 2 * O);
    assert.equal(outputs.accept('image', 'AAAA', 'image/png'), 17 + O);
    assert.equal(outputs.accept('image', 'AAAAAAAAAAAA', 'image/png'), BUDGET_SPENT);
    assert.deepEqual(outputs.outputs, [
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: `[output truncated: limit of ${30 + 2 * O} bytes reached]` },
    ]);
  });

  it('checks again what the sandbox sends', () => {
    const outputs = new OutputCollector(1000);
    outputs.accept('image', 'not base64', 'image/png');
    outputs.accept('image', 'AAAA', 'text/html');
    outputs.accept('trace', 'unknown level');
    outputs.accept('text', { not: 'a string' });
    assert.deepEqual(outputs.outputs, [
      { type: 'text', text: '[image dropped: not a valid base64 image block]' },
      { type: 'text', text: '[image dropped: not a valid base64 image block]' },
    ]);
    assert.deepEqual(outputs.logs, []);
  });

  it('ignores entries after seal()', () => {
    const outputs = new OutputCollector(100);
    outputs.seal();
    outputs.accept('text', 'late');
    assert.deepEqual(outputs.outputs, []);
  });

  it('with a limit of 0 keeps only the notice', () => {
    const outputs = new OutputCollector(0);
    assert.equal(outputs.accept('text', 'x'), BUDGET_SPENT);
    outputs.accept('text', 'y');
    assert.deepEqual(outputs.outputs, [{ type: 'text', text: '[output truncated: limit of 0 bytes reached]' }]);
  });

  it('charges every entry a fixed overhead, so empty entries are not free', () => {
    const outputs = new OutputCollector(10 * O);
    let accepted = 0;
    while (outputs.accept(accepted % 2 === 0 ? 'text' : 'log', '') !== BUDGET_SPENT) accepted++;
    // Ten entries fit exactly; the eleventh becomes the notice.
    assert.equal(outputs.outputs.length + outputs.logs.length, 11);
    assert.equal(outputs.accept('text', ''), BUDGET_SPENT);
  });

  it('keeps at most MAX_ENTRIES entries, the last one the notice', () => {
    const outputs = new OutputCollector(Number.MAX_SAFE_INTEGER);
    for (let i = 0; i < MAX_ENTRIES + 5; i++) outputs.accept(i % 3 === 0 ? 'warn' : 'text', '');
    assert.equal(outputs.outputs.length + outputs.logs.length, MAX_ENTRIES);
    const texts = [...outputs.outputs, ...outputs.logs].map((entry) => ('text' in entry ? entry.text : ''));
    assert.deepEqual(
      texts.filter((text) => text !== ''),
      [`[output truncated: limit of ${MAX_ENTRIES} entries reached]`],
    );
    assert.equal(outputs.accept('text', 'x'), BUDGET_SPENT);
  });
});
