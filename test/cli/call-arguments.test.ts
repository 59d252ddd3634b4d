import assert from 'node:assert/strict';
import { UsageError } from '../../src/cli/usage.js';
import { isKeyValueForm, parseJsonArguments, parseKeyValueArguments } from '../../src/cli/args/call-arguments.js';
import { closest } from '../../src/cli/args/suggest.js';

const schema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    recursive: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    options: { type: 'object' },
    either: { anyOf: [{ type: 'number' }, { type: 'string' }] },
    anything: {},
  },
};

describe('call arguments', () => {
  it('tells JSON from key=value', () => {
    assert.equal(isKeyValueForm([]), false);
    assert.equal(isKeyValueForm(['{"a":1}']), false);
    assert.equal(isKeyValueForm(['a=1']), true);
  });

  it('types key=value by the schema: numbers, booleans, JSON for arrays and objects, text otherwise', () => {
    const args = parseKeyValueArguments(
      ['path=0123', 'count=7', 'ratio=0.5', 'recursive=true', 'tags=["a","b"]', 'options={"x":1}', 'either=3', 'anything=null', 'note=a=b'],
      schema,
      'tool',
    );
    assert.deepEqual(args, {
      path: '0123',
      count: 7,
      ratio: 0.5,
      recursive: true,
      tags: ['a', 'b'],
      options: { x: 1 },
      either: 3,
      anything: null,
      note: 'a=b',
    });
    assert.deepEqual(parseKeyValueArguments(['either=abc', 'path='], schema, 'tool'), { either: 'abc', path: '' });
  });

  it('refuses what does not fit, naming the argument', () => {
    const refused = (words: string[], pattern: RegExp): void =>
      assert.throws(
        () => parseKeyValueArguments(words, schema, 'tool'),
        (e: unknown) => e instanceof UsageError && pattern.test(e.message),
      );
    refused(['count=1.5'], /count needs a whole number/);
    refused(['count=many'], /count needs an integer, got "many"/);
    refused(['recursive=yes'], /recursive needs a boolean/);
    refused(['tags=a,b'], /tags needs JSON/);
    refused(['count'], /"count" is not key=value/);
    refused(['count=1', 'count=2'], /given twice/);
    refused(['cuont=1'], /no argument "cuont"\. Did you mean "count"\?/);
    assert.throws(() => parseKeyValueArguments(['x=1'], { type: 'object', properties: { a: {} }, additionalProperties: false }, 't'), /no argument "x"/);
  });

  it('takes one JSON object', () => {
    assert.deepEqual(parseJsonArguments(['{"a":[1]}']), { a: [1] });
    assert.throws(() => parseJsonArguments(['[1]']), /must be a JSON object/);
    assert.throws(() => parseJsonArguments(['{nope']), /must be JSON/);
    assert.throws(() => parseJsonArguments(['{}', '{}']), /not both/);
  });
});

describe('closest names', () => {
  it('suggests close edits and containing names, best first, and nothing for unrelated words', () => {
    assert.deepEqual(closest('lsit', ['list', 'describe', 'call', 'run', 'typings']), ['list']);
    assert.deepEqual(closest('timout', ['timeout', 'out', 'memory']), ['timeout']);
    assert.deepEqual(closest('file', ['read_file', 'write_file', 'list_directory']), ['read_file', 'write_file']);
    assert.deepEqual(closest('zzzz', ['list', 'call']), []);
  });
});

describe('CLI wording', () => {
  it('names the flags a person typed instead of library options', async () => {
    const { cliWording } = await import('../../src/cli/output/wording.js');
    assert.equal(
      cliWording(
        'The script did not finish within its time limit of 1500 ms (timeoutMs), time awaiting tools included. Do less in one run, or raise the limit.',
      ),
      'The script did not finish within its time limit of 1.5 s (--timeout), time awaiting tools included. Do less in one run, or raise it.',
    );
    assert.match(cliWording('memory limit of 64 MB (memoryLimitMb)'), /\(--memory\)/);
    assert.match(cliWording('or set acceptUnknownHostKey: true to trust it'), /or pass --accept-host-key to trust it/);
    assert.match(cliWording('Refusing to connect; acceptUnknownHostKey does not override this.'), /--accept-host-key does not override/);
  });
});
