import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { ProgressLines } from '../../src/cli/output/progress.js';

/** A terminal stand-in: collects what is written; isTTY as given. */
function terminal(isTTY: boolean): Writable & { isTTY: boolean; columns: number; text: () => string } {
  let written = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  return Object.assign(stream, { isTTY, columns: 60, text: () => written });
}

/** What the screen shows after the writes: interprets \r, \n, cursor-up and clear-to-end. */
function screen(text: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  for (let i = 0; i < text.length; i++) {
    const esc = /^\x1b\[(\d*)([AJ])/.exec(text.slice(i));
    if (esc) {
      if (esc[2] === 'A') row -= Number(esc[1] || 1);
      else lines.splice(row + 1), (lines[row] = '');
      i += esc[0].length - 1;
    } else if (text[i] === '\r') {
      lines[row] = lines[row] ?? '';
    } else if (text[i] === '\n') {
      row++;
      lines[row] ??= '';
    } else {
      lines[row] = (lines[row] ?? '') + text[i];
    }
  }
  return lines.filter((l, i) => l !== '' || i < lines.length - 1);
}

describe('ProgressLines', () => {
  it('keeps one line per call, redraws in place, removes a call that ended, and prints above the lines', () => {
    const tty = terminal(true);
    const lines = new ProgressLines(tty);
    lines.update(1, 'a/slow', 1, 4);
    lines.update(2, 'b/fast', 5, 10, 'half\x1b[31m way');
    assert.deepEqual(screen(tty.text()), ['a/slow [#####...............] 25%', 'b/fast [##########..........] 50% half\\x1b[31m way']);
    lines.update(1, 'a/slow', 2, 4);
    lines.print(tty, 'output\n');
    lines.remove(2);
    assert.deepEqual(screen(tty.text()), ['output', 'a/slow [##########..........] 50%']);
    lines.clear();
    assert.deepEqual(screen(tty.text()), ['output']);
  });

  it('writes nothing but what is printed when the stream is not a terminal', () => {
    const pipe = terminal(false);
    const lines = new ProgressLines(pipe);
    lines.update(1, 'a/slow', 1, 4);
    lines.print(pipe, 'output\n');
    lines.remove(1);
    lines.clear();
    assert.equal(pipe.text(), 'output\n');
  });
});
