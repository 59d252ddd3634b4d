import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { UsageError } from '../../src/cli/usage.js';
import { commandWords, splitCommandLine } from '../../src/cli/args/shell-words.js';

/** How /bin/sh splits `line` (globbing off; the lines hold no $, `, ~ or operators, so nothing expands). */
function shellWords(line: string): string[] {
  const out = execFileSync('/bin/sh', ['-c', `set -f; for w in ${line}; do printf '%s\\0' "$w"; done`], { encoding: 'utf8' });
  return out === '' ? [] : out.slice(0, -1).split('\0');
}

// Lines a shell splits without expanding anything: the splitter must agree word for word.
const LINES = [
  'npx -y @modelcontextprotocol/server-filesystem "/srv/my docs"',
  "npx -y pkg '/srv/my docs'",
  'node   server.js\t--port 3000',
  'a"b c"d',
  "a'b c'd",
  '"" x',
  "'' x",
  'a\\ b c',
  'a\\"b',
  "a\\'b",
  '"a\\"b"',
  '"a\\\\b"',
  '"a\\nb"',
  "'a\\nb'",
  '"it\'s"',
  '\'say "hi"\'',
  'a\\\nb',
  'a \\\n b',
  '"a\\\nb"',
  "'a\\\nb'",
  '  leading and trailing  ',
  'x "" y',
  '"\\\\"',
  '"\\x"',
  'a=b "c=d e"',
  '--flag="a value" --other=\'x y\'',
];

describe('cli/split-command: a command line typed as one word', () => {
  it('splits like /bin/sh, quote for quote', () => {
    for (const line of LINES) assert.deepEqual(splitCommandLine(line), shellWords(line), JSON.stringify(line));
  });

  it('expands nothing: ${VAR}, $VAR, globs, ~ and backquotes stay as written, in and out of quotes', () => {
    assert.deepEqual(splitCommandLine('node srv.js ${WORKSPACE} $HOME *.json ~/x `id`'), ['node', 'srv.js', '${WORKSPACE}', '$HOME', '*.json', '~/x', '`id`']);
    assert.deepEqual(splitCommandLine('"${A} b" \'${B}\''), ['${A} b', '${B}']);
    // Inside double quotes \$ is an escaped dollar, as in a shell: the word keeps a plain "$".
    assert.deepEqual(splitCommandLine('"\\${A}"'), ['${A}']);
    assert.deepEqual(splitCommandLine('a;b | c && d > e'), ['a;b', '|', 'c', '&&', 'd', '>', 'e']);
  });

  it('an unterminated quote or a trailing backslash is a usage error of add', () => {
    for (const line of ['npx "unclosed', "npx 'unclosed", 'npx trailing\\', '"a\\"']) {
      assert.throws(
        () => splitCommandLine(line),
        (error: unknown) => error instanceof UsageError && error.command === 'add' && /unterminated|trailing backslash/.test(error.message),
        line,
      );
    }
  });

  it('blank input gives no words', () => {
    assert.deepEqual(splitCommandLine(''), []);
    assert.deepEqual(splitCommandLine(' \t\n'), []);
  });

  it('several words after -- are taken as the shell gave them; one word is split only when it has a blank', () => {
    assert.deepEqual(commandWords(['node', "it's a file.js", '"quoted"']), ['node', "it's a file.js", '"quoted"']);
    assert.deepEqual(commandWords(['npx -y pkg "/srv/my docs"']), ['npx', '-y', 'pkg', '/srv/my docs']);
    assert.deepEqual(commandWords(["/usr/bin/it's"]), ["/usr/bin/it's"]);
    assert.deepEqual(commandWords([]), []);
  });
});
