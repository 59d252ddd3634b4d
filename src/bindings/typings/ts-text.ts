/**
 * Safe TypeScript text from untrusted strings: comments that cannot be closed early, string
 * literals that cannot be broken out of, identifiers made of ASCII letters and digits only.
 */

const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029]/g;
// C0/C1 controls (tab aside), and bidi controls that could make a comment read differently.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Text for one line of a `//` comment: no line break survives, whatever the input. */
export function lineCommentText(text: string, maxLength = 500): string {
  return truncate(text.replace(LINE_BREAKS, ' ').replace(INVISIBLE, ' '), maxLength);
}

/** A `/** … *\/` comment at `indent`, or '' for empty text. `*\/` in the text is defused. */
export function docComment(text: string, indent: string, maxLength = 4000): string {
  const lines = truncate(text, maxLength)
    .replace(INVISIBLE, ' ')
    .split(LINE_BREAKS)
    .map((line) => line.replace(/\*\//g, '*\\/').trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

/** A double-quoted TypeScript string literal for any string. */
export function stringLiteral(value: string): string {
  return escapeLineSeparators(JSON.stringify(value));
}

/**
 * JSON.stringify leaves U+2028 and U+2029 raw; TypeScript's scanner treats them as line breaks in
 * a string literal. Escaping them everywhere is also harmless inside comments.
 */
export function escapeLineSeparators(code: string): string {
  return code.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * A PascalCase identifier from any name: ASCII letters and digits only, never starting with a
 * digit, never empty (then `fallback`). Reserved words cannot result: they are all lowercase.
 */
export function pascalIdentifier(name: string, fallback: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  const id = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
  if (id === '') return fallback;
  return /^[0-9]/.test(id) ? `_${id}` : id;
}

/** Hands out identifiers, suffixing `_2`, `_3`… to names already taken. */
export class UniqueNames {
  readonly #taken = new Set<string>();

  take(base: string): string {
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}_${n}`;
    this.#taken.add(name);
    return name;
  }
}

/**
 * Indents json-schema-to-typescript's unformatted output by brace depth. Only lines outside
 * comments move the depth, so braces in descriptions cannot skew it.
 */
export function indentBlock(code: string, indent: string): string {
  let depth = 0;
  let inComment = false;
  const out: string[] = [];
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (inComment || line.startsWith('/*')) {
      out.push(indent + '  '.repeat(depth) + (line.startsWith('*') ? ` ${line}` : line));
      inComment = !line.endsWith('*/');
      continue;
    }
    if (/^[}\])]/.test(line)) depth = Math.max(0, depth - 1);
    out.push(indent + '  '.repeat(depth) + line);
    if (/[{([]$/.test(line)) depth++;
  }
  return out.join('\n');
}

function truncate(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength)}…`;
}
