/**
 * TypeScript to JavaScript by stripping the types (amaro blanks them with spaces), with every
 * other character where it was: a line and column in the stripped script are the same in the
 * script as written. Nothing is generated: what would need code (an enum...) is refused.
 */
import { stripWithAmaro } from './amaro.js';
import { unsupportedMessage } from './unsupported.js';

/** The most characters of TypeScript stripped: past it the script runs only as JavaScript. */
export const MAX_TYPESCRIPT_CHARS = 1_048_576;

/** A place in the script as written: line and column 1-based, the column in UTF-16 units as V8 counts it. */
export interface ScriptPosition {
  readonly line: number;
  readonly column: number;
}

export type StripResult =
  | { readonly kind: 'stripped'; readonly code: string }
  /** Not TypeScript either: amaro's own syntax error. */
  | ({ readonly kind: 'invalid'; readonly message: string } & ScriptPosition)
  /** TypeScript that stripping cannot turn into JavaScript: the message names it (and where, when known). */
  | ({ readonly kind: 'unsupported'; readonly message: string } & Partial<ScriptPosition>);

// The script is a function body: a bare `return` or `await` is refused by amaro outside one. The
// prefix stays on the script's first line, so only that line's columns move, by its length.
const PREFIX = '(async () => {';
const SUFFIX = '\n})';

/** Strips `code`'s types; never throws for anything in `code`. */
export function stripTypes(code: string): StripResult {
  if (code.length > MAX_TYPESCRIPT_CHARS) {
    return { kind: 'unsupported', message: `TypeScript scripts may have at most ${MAX_TYPESCRIPT_CHARS} characters, this one has ${code.length}` };
  }
  const twin = asciiTwin(code);
  const wrapped = PREFIX + twin + SUFFIX;
  const answer = stripWithAmaro(wrapped);
  if ('unavailable' in answer) {
    return {
      kind: 'unsupported',
      message: `TypeScript needs the amaro package, which does not load here (${answer.unavailable}): reinstall berry-mcp, or send JavaScript`,
    };
  }
  if ('crashed' in answer) {
    return { kind: 'unsupported', message: `the TypeScript type stripper gave up on this script (${answer.crashed}): is it nested too deeply?` };
  }
  if ('refused' in answer) {
    const { refused } = answer;
    const at = { line: refused.startLine, column: refused.startColumn + 1 - (refused.startLine === 1 ? PREFIX.length : 0) };
    if (refused.code === 'InvalidSyntax') return { kind: 'invalid', message: refused.message, ...at };
    return { kind: 'unsupported', message: unsupportedMessage(refused.message, at.line, at.column), ...at };
  }
  const out = answer.code;
  if (out.length !== wrapped.length || !out.startsWith(PREFIX) || !out.endsWith(SUFFIX)) {
    return { kind: 'unsupported', message: 'the TypeScript type stripper moved code around, which berry-mcp does not accept' };
  }
  return { kind: 'stripped', code: merge(code, twin, out.slice(PREFIX.length, out.length - SUFFIX.length)) };
}

/**
 * `code` with one printable ASCII character for each UTF-16 unit, which amaro parses the same
 * way: amaro counts columns in display width (a tab as 4, a CJK character as 2, a combining mark
 * as 0), so only on ASCII are its columns V8's. Line breaks become "\n" (so that lines are counted
 * as V8 counts them), other white space a space, anything else (letters of identifiers, characters
 * of strings and comments, each half of a surrogate pair) an identifier character.
 */
export function asciiTwin(code: string): string {
  if (!/[^\n\x20-\x7e]/.test(code)) return code;
  const out = new Array<string>(code.length);
  for (let i = 0; i < code.length; i++) {
    const unit = code.charCodeAt(i);
    if (unit === 0x0a || (unit >= 0x20 && unit < 0x7f)) out[i] = code[i]!;
    else if (unit === 0x0d) out[i] = code.charCodeAt(i + 1) === 0x0a ? ' ' : '\n';
    else if (unit === 0x2028 || unit === 0x2029) out[i] = '\n';
    else if (unit < 0x80 || /\s/.test(code[i]!)) out[i] = ' ';
    else out[i] = '_';
  }
  return out.join('');
}

/** The script with amaro's changes to its twin (types blanked, a `;` kept) made to the original. */
function merge(code: string, twin: string, stripped: string): string {
  if (twin === code) return stripped;
  let out = '';
  let from = 0;
  for (let i = 0; i < code.length; i++) {
    if (stripped[i] === twin[i]) continue;
    out += code.slice(from, i) + stripped[i];
    from = i + 1;
  }
  return out + code.slice(from);
}
