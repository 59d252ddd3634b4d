import assert from 'node:assert/strict';
import { LineReader, LineTooLongError } from '../../../src/remote/transport/stdio/line-reader.js';

function collect(reader: LineReader, chunks: Buffer[]): string[] {
  const lines: string[] = [];
  for (const chunk of chunks) reader.push(chunk, (line) => lines.push(line));
  return lines;
}

describe('line reader', () => {
  it('splits lines across chunks, drops \\r, keeps multi-byte characters cut between chunks whole', () => {
    const bytes = Buffer.from('{"a":"é"}\r\n{"b":1}\n\n{"c":"€"}\n');
    const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(collect(new LineReader(100), chunks), ['{"a":"é"}', '{"b":1}', '', '{"c":"€"}']);
  });

  it('holds a partial line until its newline arrives', () => {
    const reader = new LineReader(100);
    assert.deepEqual(collect(reader, [Buffer.from('abc'), Buffer.from('def')]), []);
    assert.equal(reader.pendingBytes, 6);
    assert.deepEqual(collect(reader, [Buffer.from('\nx')]), ['abcdef']);
  });

  it('throws as soon as a line without newline passes the limit, and then ignores the rest', () => {
    const reader = new LineReader(10);
    reader.push(Buffer.from('12345'), () => assert.fail());
    assert.throws(
      () => reader.push(Buffer.from('678901'), () => assert.fail()),
      (error: unknown) => {
        assert.ok(error instanceof LineTooLongError);
        assert.equal(error.bytes, 11);
        assert.equal(error.limitBytes, 10);
        return true;
      },
    );
    reader.push(Buffer.from('ok\n'), () => assert.fail('a spent reader delivers nothing'));
  });

  it('a line of exactly the limit passes; one byte more does not', () => {
    assert.deepEqual(collect(new LineReader(4), [Buffer.from('abcd\n')]), ['abcd']);
    assert.throws(() => collect(new LineReader(4), [Buffer.from('abcde\n')]), LineTooLongError);
  });

  it('refuses a limit it cannot honour', () => {
    assert.throws(() => new LineReader(0), RangeError);
    assert.throws(() => new LineReader(2 ** 30), RangeError);
  });
});
