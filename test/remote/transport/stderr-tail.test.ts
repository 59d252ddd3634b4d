import assert from 'node:assert/strict';
import { TailBuffer } from '../../../src/remote/transport/stdio/stderr-tail.js';

describe('TailBuffer', () => {
  it('keeps everything while under the limit', () => {
    const tail = new TailBuffer(64);
    tail.push(Buffer.from('one\n'));
    tail.push(Buffer.from('two\n'));
    assert.equal(tail.text(), 'one\ntwo');
  });

  it('keeps the last bytes and starts at a line when it had to cut', () => {
    const tail = new TailBuffer(16);
    for (let i = 0; i < 10; i++) tail.push(Buffer.from(`line ${i}\n`));
    assert.equal(tail.text(), 'line 8\nline 9');
  });

  it('never starts with half a character when no line starts in the tail', () => {
    const tail = new TailBuffer(10);
    tail.push(Buffer.from(`x${'é'.repeat(20)}`));
    const text = tail.text();
    assert.ok(!text.includes('\ufffd'), JSON.stringify(text));
    assert.match(text, /^é+$/);
  });
});
