import assert from 'node:assert/strict';
import { ConfigError } from '../../src/common/errors.js';
import { lineColumn, parseJson } from '../../src/config/json/parse-json.js';
import { createTempTree, type TempTree } from './temp-machine.js';
import { loadWith } from './load-helpers.js';

function parseError(text: string): ConfigError {
  try {
    parseJson(text, '/x/mcp.json');
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error;
  }
  assert.fail('expected a ConfigError');
}

describe('config/parse-json', () => {
  it('reports a missing comma with 1-based line and column', () => {
    const error = parseError('{\n  "mcpServers": {\n    "a": {"command": "x"}\n    "b": {}\n  }\n}');
    assert.equal(error.code, 'MCP_CONFIG_INVALID');
    assert.equal(error.file, '/x/mcp.json');
    assert.equal(error.line, 4);
    assert.equal(error.column, 5);
    assert.equal(error.message, "Invalid JSON in /x/mcp.json at line 4, column 5: Expected ',' or '}' after property value. Fix the syntax and retry.");
  });

  it('reports the first line and column for an error at the very start', () => {
    const error = parseError('x');
    assert.equal(error.line, 1);
    assert.equal(error.column, 1);
  });

  it('reports the end of input for a truncated file', () => {
    const error = parseError('{\n  "mcpServers": {\n');
    assert.equal(error.line, 3);
    assert.equal(error.column, 1);
    assert.match(error.message, /at line 3, column 1: Expected property name or '}'\. Fix the syntax and retry\.$/);
    const empty = parseError('');
    assert.deepEqual([empty.line, empty.column], [1, 1]);
    assert.match(empty.message, /at line 1, column 1: Unexpected end of JSON input\./);
    const open = parseError('{"a": [1,\n2');
    assert.deepEqual([open.line, open.column], [2, 2]);
  });

  it('never quotes file text, and still finds the position when V8 gives none', () => {
    // V8 says: Unexpected token '}', "{"token": "sk-live-12345", "x": tru}" is not valid JSON
    const text = '{"token": "sk-live-12345",\n "x": tru}';
    const error = parseError(text);
    assert.doesNotMatch(error.message, /sk-live/);
    assert.equal(error.message, "Invalid JSON in /x/mcp.json at line 2, column 10: Unexpected token '}'. Fix the syntax and retry.");
    assert.equal(error.line, 2);
    assert.equal(error.column, 10);
  });

  it('finds a trailing comma in an array', () => {
    const error = parseError('{"a": [1,\n  2,\n  ]}');
    assert.equal(error.line, 3);
    assert.equal(error.column, 3);
    assert.doesNotMatch(error.message, /"a"/);
  });

  it('ignores a leading byte-order mark', () => {
    assert.deepEqual(parseJson('\uFEFF{"a": 1}', '/x').value, { a: 1 });
    const error = parseError('\uFEFF{\n,}');
    assert.deepEqual([error.line, error.column], [2, 1]);
  });

  it('reports keys given twice with their lines, and the key order of the chosen object', () => {
    const parsed = parseJson('{"m": {"b": 1, "2": 2,\n "b": 3, "a": {"b": 1, "b": 2}}}', '/x', ['m']);
    assert.deepEqual(parsed.orderedKeys, ['b', '2', 'a']);
    assert.deepEqual(
      parsed.duplicates.map((d) => [d.path, d.key, d.firstLine, d.line, d.column]),
      [
        [['m'], 'b', 1, 2, 2],
        [['m', 'a'], 'b', 2, 2, 24],
      ],
    );
  });

  it('computes line and column from an offset', () => {
    assert.deepEqual(lineColumn('ab\ncd\r\nef', 0), { line: 1, column: 1 });
    assert.deepEqual(lineColumn('ab\ncd\r\nef', 4), { line: 2, column: 2 });
    assert.deepEqual(lineColumn('ab\ncd\r\nef', 7), { line: 3, column: 1 });
  });

  describe('through loadConfig', () => {
    let tree: TempTree;
    before(async () => {
      tree = await createTempTree();
    });
    after(async () => {
      await tree.remove();
    });

    it('throws a ConfigError with file, line and column', async () => {
      await assert.rejects(loadWith(tree, '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}'), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.file, /\.config\/berry\/mcp\.json$/);
        assert.equal(err.line, 3);
        assert.equal(err.column, 26);
        assert.equal(err.server, undefined);
        assert.match(err.message, /^Invalid JSON in \/.*mcp\.json at line 3, column 26: .*\. Fix the syntax and retry\.$/);
        return true;
      });
    });
  });
});
