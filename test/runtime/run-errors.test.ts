import assert from 'node:assert/strict';
import { compileError, positionIn, thrownError } from '../../src/runtime/run-errors.js';

describe('run errors', () => {
  it('finds the first frame in the user file, named or anonymous', () => {
    assert.deepEqual(positionIn('\n    at f (script.js:3:7)\n    at async script.js:9:1', 'script.js'), { line: 3, column: 7 });
    assert.deepEqual(positionIn('\n    at async script.js:12:5\n', 'script.js'), { line: 12, column: 5 });
    assert.deepEqual(positionIn('\n    at g (berry-mcp:bootstrap:1:2)\n    at my script.js:4:2', 'my script.js'), { line: 4, column: 2 });
    assert.equal(positionIn('\n    at g (other-script.js:1:2)', 'script.js'), undefined);
  });

  it('takes position and message apart from isolated-vm compile errors', () => {
    const error = Object.assign(new SyntaxError("Unexpected token ';' [job.js:4:9]"), {});
    assert.deepEqual(compileError(error, 'job.js'), { name: 'SyntaxError', message: "Unexpected token ';'", code: 'SCRIPT_ERROR', line: 4, column: 9 });
    assert.deepEqual(compileError(new SyntaxError('odd'), 'job.js'), { name: 'SyntaxError', message: 'odd', code: 'SCRIPT_ERROR' });
  });

  it('keeps a string code and defaults to SCRIPT_ERROR', () => {
    assert.deepEqual(thrownError({ name: 'Error', message: 'm', code: 'MCP_TIMEOUT' }, 'script.js'), { name: 'Error', message: 'm', code: 'MCP_TIMEOUT' });
    assert.deepEqual(thrownError({ name: '', message: 'm', code: 7 }, 'script.js'), { name: 'Error', message: 'm', code: 'SCRIPT_ERROR' });
  });
});
