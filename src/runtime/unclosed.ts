/**
 * What a script leaves open at its end: the bracket, template literal, string or comment that
 * made the parser run past the script into the wrapper around it. A light scanner, not a parser:
 * it only has to find the innermost opener still open when the text ends.
 */

export interface Unclosed {
  /** How the opener reads in a message: "`{`", "the template literal", … */
  readonly what: string;
  /** 1-based line and column of the opener. */
  readonly line: number;
  readonly column: number;
}

type Opener = '{' | '(' | '[' | '`' | '${';

interface Open {
  readonly kind: Opener;
  readonly line: number;
  readonly column: number;
}

const CLOSER: Readonly<Record<string, Opener>> = { '}': '{', ')': '(', ']': '[' };
// After these (or at the start) a `/` begins a regular expression, not a division.
const REGEX_AFTER_PUNCT = new Set('(,=:[!&|?{};+-*%<>~^'.split(''));
const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await']);

export function findUnclosed(code: string): Unclosed | undefined {
  const stack: Open[] = [];
  let line = 1;
  let lineStart = 0;
  let i = 0;
  let lastSignificant = '';
  let lastWord = '';
  const at = (index: number): { line: number; column: number } => ({ line, column: index - lineStart + 1 });
  const newline = (index: number): void => {
    line++;
    lineStart = index + 1;
  };
  /** Skips to just past `end`, counting lines; false when the text ends first. */
  const skipTo = (end: string): boolean => {
    for (; i < code.length; i++) {
      if (code.startsWith(end, i)) {
        i += end.length;
        return true;
      }
      if (code[i] === '\n') newline(i);
    }
    return false;
  };

  while (i < code.length) {
    const top = stack[stack.length - 1];
    const c = code[i]!;
    if (top?.kind === '`') {
      // Inside a template literal's text.
      if (c === '\\') i += 2;
      else if (c === '`') {
        stack.pop();
        i++;
        lastSignificant = '`';
      } else if (c === '$' && code[i + 1] === '{') {
        stack.push({ kind: '${', ...at(i) });
        i += 2;
        lastSignificant = '{';
      } else {
        if (c === '\n') newline(i);
        i++;
      }
      continue;
    }
    if (c === '\n') {
      newline(i);
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '/' && code[i + 1] === '/') {
      while (i < code.length && code[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && code[i + 1] === '*') {
      const start = at(i);
      i += 2;
      if (!skipTo('*/')) return { what: 'the comment `/*`', ...start };
      continue;
    }
    if (c === "'" || c === '"') {
      const start = at(i);
      for (i++; i < code.length && code[i] !== c; i++) {
        if (code[i] === '\\') i++;
        else if (code[i] === '\n') return { what: 'the string', ...start };
      }
      if (i >= code.length) return { what: 'the string', ...start };
      i++;
      lastSignificant = c;
      continue;
    }
    if (c === '/' && (lastSignificant === '' || REGEX_AFTER_PUNCT.has(lastSignificant) || REGEX_AFTER_WORD.has(lastWord))) {
      let inClass = false;
      for (i++; i < code.length && code[i] !== '\n'; i++) {
        if (code[i] === '\\') i++;
        else if (code[i] === '[') inClass = true;
        else if (code[i] === ']') inClass = false;
        else if (code[i] === '/' && !inClass) break;
      }
      i++;
      lastSignificant = '/';
      lastWord = '';
      continue;
    }
    if (c === '`' || c === '{' || c === '(' || c === '[') {
      stack.push({ kind: c, ...at(i) });
    } else if (c in CLOSER) {
      const want = CLOSER[c];
      if (top !== undefined && (top.kind === want || (c === '}' && top.kind === '${'))) stack.pop();
    }
    if (/[\w$]/.test(c)) {
      let end = i;
      while (end < code.length && /[\w$]/.test(code[end]!)) end++;
      lastWord = code.slice(i, end);
      lastSignificant = 'a';
      i = end;
      continue;
    }
    lastSignificant = c;
    lastWord = '';
    i++;
  }
  const open = stack[stack.length - 1];
  if (open === undefined) return undefined;
  const what = open.kind === '`' ? 'the template literal' : open.kind === '${' ? 'the `${` of a template literal' : `\`${open.kind}\``;
  return { what, line: open.line, column: open.column };
}
