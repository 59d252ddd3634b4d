import assert from 'node:assert/strict';
import { scanJson } from '../../src/config/json/json-scan.js';

const VALID = [
  '{}',
  '[]',
  '0',
  '-0',
  '1.5e+10',
  '-12.25E-3',
  'true',
  'false',
  'null',
  '"a\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9"',
  ' { "a" : [ 1 , { "b" : null } , [ ] ] , "c" : { } } ',
  '[[[[[]]]]]',
  '"\u2028 é 😀"',
  '{"__proto__": {"x": 1}}',
];
const INVALID = [
  '',
  ' ',
  '{',
  '}',
  '[1,]',
  '{"a":1,}',
  '{"a" 1}',
  '{a:1}',
  "{'a':1}",
  '01',
  '1.',
  '.5',
  '1e',
  '-',
  '+1',
  'tru',
  'nul',
  'True',
  '"abc',
  '"a\\x"',
  '"\\u12g4"',
  '"a\nb"',
  '{"a":1}}',
  '[1 2]',
  '{"a":1 "b":2}',
  '[1]x',
  'NaN',
  'Infinity',
  '{,}',
  '[,1]',
  '{"a":}',
  '//c\n{}',
];

describe('config/json-scan', () => {
  it('agrees with JSON.parse on what is valid', () => {
    for (const text of VALID) {
      assert.doesNotThrow(() => JSON.parse(text), text);
      assert.equal(scanJson(text).errorOffset, -1, text);
    }
    for (const text of INVALID) {
      assert.throws(() => JSON.parse(text), SyntaxError, text);
      assert.notEqual(scanJson(text).errorOffset, -1, text);
    }
  });

  it('agrees with V8 on the error position when V8 gives one', () => {
    for (const text of INVALID) {
      try {
        JSON.parse(text);
      } catch (error) {
        const match = / at position (\d+)/.exec((error as Error).message);
        if (match) assert.equal(scanJson(text).errorOffset, Number(match[1]), text);
      }
    }
  });

  it('records keys in file order at the chosen path only, first occurrences only', () => {
    const result = scanJson('{"x": {"9": 1}, "s": {"b": {"z": 1}, "1": [{"q": 1}], "b": 2, "a": 3}}', ['s']);
    assert.deepEqual(result.orderedKeys, ['b', '1', 'a']);
    assert.equal(scanJson('{"x": {}}', ['s']).orderedKeys, undefined);
    assert.deepEqual(scanJson('{"s": {}}', ['s']).orderedKeys, []);
  });

  it('decodes escaped keys before comparing them', () => {
    const result = scanJson('{"a": 1, "\\u0061": 2}');
    assert.equal(result.duplicates.length, 1);
    assert.equal(result.duplicates[0]?.key, 'a');
    assert.deepEqual(result.duplicates[0]?.path, []);
  });

  it('gives paths through arrays', () => {
    const result = scanJson('[0, {"k": [{"d": 1, "d": 2}]}]');
    assert.deepEqual(result.duplicates[0]?.path, [1, 'k', 0]);
  });
});
