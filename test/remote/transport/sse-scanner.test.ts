import assert from 'node:assert/strict';
import { SseScanner } from '../../../src/remote/transport/http/sse-scanner.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function scan(chunks: readonly string[]): { data: string[]; scanner: SseScanner } {
  const data: string[] = [];
  const scanner = new SseScanner((d) => data.push(d));
  for (const chunk of chunks) scanner.push(bytes(chunk));
  return { data, scanner };
}

describe('transport/sse-scanner', () => {
  it('reads ids, retry and data of dispatched events, whatever the chunking and line endings', () => {
    const stream = 'id: a1\nretry: 500\ndata: \n\nevent: message\nid: a2\ndata: {"x":1}\r\n\r\ndata: line1\rdata: line2\r\rid: a3\n: comment\ndata: {"y"\n';
    const whole = scan([stream]);
    assert.deepEqual(whole.data, ['{"x":1}', 'line1\nline2']);
    assert.equal(whole.scanner.retryMs, 500);
    // a3 was never dispatched (no blank line yet): resuming must start after a2.
    assert.equal(whole.scanner.lastEventId, 'a2');
    for (let size = 1; size < 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.slice(i, i + size));
      const split = scan(chunks);
      assert.deepEqual(split.data, whole.data, `chunks of ${size}`);
      assert.equal(split.scanner.lastEventId, 'a2');
    }
  });

  it('a UTF-8 character split across chunks survives; reset drops a half event of the old stream', () => {
    const encoded = bytes('data: héllo\n\n');
    const data: string[] = [];
    const scanner = new SseScanner((d) => data.push(d));
    scanner.push(encoded.slice(0, 8));
    scanner.push(encoded.slice(8));
    assert.deepEqual(data, ['héllo']);
    scanner.push(bytes('data: half'));
    scanner.reset();
    scanner.push(bytes('id: b1\ndata: whole\n\n'));
    assert.deepEqual(data, ['héllo', 'whole']);
    assert.equal(scanner.lastEventId, 'b1');
  });

  it('is linear in a long data line that arrives in many chunks', () => {
    const data: string[] = [];
    const scanner = new SseScanner((d) => data.push(d));
    scanner.push(bytes('data: '));
    const piece = bytes('x'.repeat(64 * 1024));
    for (let i = 0; i < 160; i++) scanner.push(piece); // 10 MB in 64 KB chunks
    scanner.push(bytes('\n\n'));
    assert.equal(data[0]!.length, 160 * 64 * 1024);
  });
});
