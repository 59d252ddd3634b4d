/**
 * Compiling a script that is not JavaScript: as TypeScript with its types stripped. Loaded by the
 * run only for such a script (run-script.ts), so JavaScript never loads it or amaro.
 */
import type IsolatedVm from 'isolated-vm';
import { BerryError } from '../../common/errors.js';
import { compileUserScript } from '../sandbox.js';
import { MAX_TYPESCRIPT_CHARS, stripTypes, type ScriptPosition } from './strip-types.js';
import { decoratorMessage } from './unsupported.js';

/** How V8 counts lines. */
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/** TypeScript that stripping cannot run; run-errors.ts's compileError reads its position. */
export class TypeScriptUnsupportedError extends BerryError {
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(message: string, at: Partial<ScriptPosition>) {
    super('SCRIPT_TYPESCRIPT_UNSUPPORTED', message);
    this.line = at.line;
    this.column = at.column;
  }
}

/**
 * Compiles `code` (which does not parse as JavaScript) with its types stripped. Throws what
 * compileUserScript throws, positioned in `code` as written, or a TypeScriptUnsupportedError. When
 * `code` is not TypeScript either, the error is V8's, as for any JavaScript, unless V8 stopped at
 * TypeScript syntax and amaro read further: then amaro's error is the one to fix.
 */
export function compileTypeScript(isolate: IsolatedVm.Isolate, code: string, filename: string): IsolatedVm.Script {
  if (code.length > MAX_TYPESCRIPT_CHARS) return compileAsWritten(isolate, code, filename, (error) => tooLargeToStrip(error, code.length));
  const stripped = stripTypes(code);
  if (stripped.kind === 'unsupported') throw new TypeScriptUnsupportedError(stripped.message, stripped);
  if (stripped.kind === 'stripped') {
    try {
      return compileUserScript(isolate, stripped.code, filename);
    } catch (error) {
      const at = positionOf(error, filename);
      if (at !== undefined && code.split(LINE_BREAK)[at.line - 1]?.[at.column - 1] === '@') {
        throw new TypeScriptUnsupportedError(decoratorMessage(at.line, at.column), at);
      }
      throw error;
    }
  }
  return compileAsWritten(isolate, code, filename, (error) => {
    const at = positionOf(error, filename);
    const further = at !== undefined && (stripped.line > at.line || (stripped.line === at.line && stripped.column > at.column));
    if (!further || !stumbledOnTypes(code, at)) return error;
    return new SyntaxError(`${stripped.message} [${filename}:${stripped.line}:${stripped.column}]`);
  });
}

// A name that TypeScript's own keywords put where JavaScript has none (`interface I`, `private x`).
const AFTER_TYPE_KEYWORD = /\b(?:interface|type|enum|namespace|module|declare|abstract|implements|private|protected|public|readonly|override)\s+$/;
// What a name is followed by in TypeScript only: an annotation (`x: T`, `x?: T`, `x!: T`), `!`, `<T>`, `as`, `satisfies`.
const TYPE_SYNTAX = /^(?:[?!]?:|!|<|as\b|satisfies\b)/;

/**
 * True when V8 stopped at TypeScript syntax: at an annotation, a non-null `!`, type arguments,
 * `as`/`satisfies`, or a name after a TypeScript keyword (V8 points at the name or at the token).
 * Not a parser: it only decides whose syntax error to show when amaro read further than V8.
 */
function stumbledOnTypes(code: string, at: ScriptPosition): boolean {
  const lines = code.split(LINE_BREAK);
  const line = lines[at.line - 1];
  if (line === undefined) return false;
  const before = line.slice(0, at.column - 1);
  const rest = line.slice(at.column - 1);
  const name = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*/u.exec(rest)?.[0] ?? '';
  if (name !== '' && AFTER_TYPE_KEYWORD.test(before)) return true;
  return TYPE_SYNTAX.test(rest) || (name !== '' && TYPE_SYNTAX.test(rest.slice(name.length).trimStart()));
}

/** Compiles `code` unchanged; what it throws goes through `rewrite` first. */
function compileAsWritten(isolate: IsolatedVm.Isolate, code: string, filename: string, rewrite: (error: unknown) => unknown): IsolatedVm.Script {
  try {
    return compileUserScript(isolate, code, filename);
  } catch (error) {
    throw rewrite(error);
  }
}

function tooLargeToStrip(error: unknown, length: number): unknown {
  if (!(error instanceof Error) || error.name !== 'SyntaxError') return error;
  const suffix = / \[[^\]]*:\d+:\d+\]$/.exec(error.message);
  const at = suffix === null ? error.message.length : suffix.index;
  const note = ` (TypeScript is stripped from scripts of at most ${MAX_TYPESCRIPT_CHARS} characters; this one has ${length})`;
  return new SyntaxError(error.message.slice(0, at) + note + error.message.slice(at));
}

/** Where isolated-vm's compile error says it is: " [file:line:column]" ends its message. */
function positionOf(error: unknown, filename: string): ScriptPosition | undefined {
  const suffix = error instanceof Error ? / \[(.*):(\d+):(\d+)\]$/.exec(error.message) : null;
  if (suffix === null || suffix[1] !== filename) return undefined;
  return { line: Number(suffix[2]), column: Number(suffix[3]) };
}
