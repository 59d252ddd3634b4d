/**
 * `add NAME -- "npx -y pkg '/srv/my docs'"`: one command line typed as a single word, split into
 * words the way a POSIX shell would, but with nothing run and nothing expanded. Several words
 * after `--` were already split by the person's shell and are taken as they are.
 */
import { UsageError } from '../usage.js';

/**
 * Splits `line` into words: blanks (space, tab, newline) separate words; `'…'` keeps everything
 * literally; `"…"` keeps everything but `\"`, `\\`, `` \` ``, `\$` and a backslash-newline (which
 * disappears); outside quotes a backslash keeps the next character (a backslash-newline
 * disappears). `$`, `${VAR}`, `*`, `~` and backquotes stay as written: `${VAR}` is the config's
 * own syntax, expanded when the server starts on the target machine. An unterminated quote or a
 * trailing backslash is a usage error.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const fail = (what: string): never => {
    throw new UsageError(`the command ${JSON.stringify(line)} has ${what}; close it, or pass the words separately after --`, 'add');
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    if (c === "'") {
      inWord = true;
      const end = line.indexOf("'", i + 1);
      if (end === -1) fail('an unterminated single quote');
      word += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      for (;;) {
        if (i >= line.length) fail('an unterminated double quote');
        const d = line[i]!;
        if (d === '"') break;
        const next = line[i + 1];
        if (d === '\\' && next !== undefined && '"\\`$\n'.includes(next)) {
          if (next !== '\n') word += next;
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
      i++;
    } else if (c === '\\') {
      const next = line[i + 1];
      if (next === undefined) fail('a trailing backslash');
      // A backslash-newline joins lines: it is no character, and no word boundary either.
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
      i += 2;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * The command and its arguments from the words after `--`: several words as they are; a single
 * word with a blank in it is a whole command line, split by `splitCommandLine`.
 */
export function commandWords(words: readonly string[]): string[] {
  if (words.length !== 1) return [...words];
  const only = words[0]!;
  return /\s/.test(only) ? splitCommandLine(only) : [only];
}
