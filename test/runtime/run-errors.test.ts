import assert from 'node:assert/strict';
import { compileError, ownFrames, positionIn, thrownError } from '../../src/runtime/run-errors.js';
import { findUnclosed } from '../../src/runtime/unclosed.js';

describe('run errors', () => {
  it('finds the first frame in the user file, named or anonymous', () => {
    assert.deepEqual(positionIn('\n    at f (script.js:3:7)\n    at async script.js:9:1', 'script.js'), { line: 3, column: 7 });
    assert.deepEqual(positionIn('\n    at async script.js:12:5\n', 'script.js'), { line: 12, column: 5 });
    assert.deepEqual(positionIn('\n    at g (berry-mcp:bootstrap:1:2)\n    at my script.js:4:2', 'my script.js'), { line: 4, column: 2 });
    assert.equal(positionIn('\n    at g (other-script.js:1:2)', 'script.js'), undefined);
  });

  it('takes position and message apart from isolated-vm compile errors', () => {
    const error = Object.assign(new SyntaxError("Unexpected token ';' [job.js:4:9]"), {});
    assert.deepEqual(compileError(error, 'job.js', 'a\nb\nc\nlet x = ;\nd'), {
      name: 'SyntaxError',
      message: "Unexpected token ';'",
      code: 'SCRIPT_ERROR',
      line: 4,
      column: 9,
    });
    assert.deepEqual(compileError(new SyntaxError('odd'), 'job.js', ''), { name: 'SyntaxError', message: 'odd', code: 'SCRIPT_ERROR' });
  });

  it('keeps a string code and defaults to SCRIPT_ERROR', () => {
    assert.deepEqual(thrownError({ name: 'Error', message: 'm', code: 'MCP_TIMEOUT' }, 'script.js'), { name: 'Error', message: 'm', code: 'MCP_TIMEOUT' });
    assert.deepEqual(thrownError({ name: '', message: 'm', code: 7 }, 'script.js'), { name: 'Error', message: 'm', code: 'SCRIPT_ERROR' });
  });

  it('keeps only the frames in the script file', () => {
    const frames = '\n    at toError (berry-mcp:bootstrap:1:2)\n    at f (job.js:3:7)\n    at other.js:1:1\n    at async job.js:9:1';
    assert.equal(ownFrames(frames, 'job.js'), 'at f (job.js:3:7)\nat async job.js:9:1');
    assert.equal(ownFrames('\n    at g (other.js:1:2)', 'job.js'), undefined);
  });

  it('says a position past the script is the wrapper: what is open, at the last real line', () => {
    const past = new SyntaxError("Unexpected token ')' [job.js:5:2]");
    assert.deepEqual(compileError(past, 'job.js', 'if (a) {\n  b();\n\n'), {
      name: 'SyntaxError',
      message: 'unexpected end of script: `{` opened at line 1 is not closed',
      code: 'SCRIPT_ERROR',
      line: 2,
      column: 7,
    });
    const nothingOpen = new SyntaxError('Unexpected end of input [job.js:2:3]');
    assert.equal(compileError(nothingOpen, 'job.js', 'const a =').message, 'unexpected end of script: Unexpected end of input');
  });
});

describe('findUnclosed', () => {
  it('finds the innermost opener left open', () => {
    assert.deepEqual(findUnclosed('f(() => {\n  g([1, 2]);\n'), { what: '`{`', line: 1, column: 9 });
    assert.deepEqual(findUnclosed('const s = `a ${b} c'), { what: 'the template literal', line: 1, column: 11 });
    assert.deepEqual(findUnclosed('`a ${f(`'), { what: 'the template literal', line: 1, column: 8 });
    assert.deepEqual(findUnclosed('x = 1; /* note'), { what: 'the comment `/*`', line: 1, column: 8 });
    assert.deepEqual(findUnclosed('a;\nb = "open'), { what: 'the string', line: 2, column: 5 });
  });

  it('is not fooled by brackets in strings, comments, templates and regular expressions', () => {
    assert.equal(findUnclosed('const a = "{(["; // {\n/* ( */ const r = /[{(]/g; const t = `${"}"}`;'), undefined);
    assert.equal(findUnclosed('const half = a / 2 / (b); if (x) { y(); }'), undefined);
    assert.deepEqual(findUnclosed('return /}/.test(s) && (\n'), { what: '`(`', line: 1, column: 23 });
  });
});
