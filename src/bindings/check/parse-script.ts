/**
 * The script as TypeScript's parser reads it: the body of an async function, wrapped as the
 * sandbox wraps it (one line before, one after), so a node's line in the wrapper is the script's
 * own line and its column is unchanged. TypeScript's parser reads plain JavaScript too.
 */
import type { SourceFile } from 'typescript';
import type { TypeScript } from './load-typescript.js';

const PREFIX = '(async () => {\n';

/** Where the script is, for the compiler: `.ts`, or `.js` when only JavaScript parses it. */
const SCRIPT_FILE = { ts: '/berry-mcp/script.ts', js: '/berry-mcp/script.js' };

export interface ParsedScript {
  readonly ts: TypeScript;
  readonly file: SourceFile;
  /** The script's 1-based line and column of a position in `file`. */
  at(position: number): { readonly line: number; readonly column: number };
}

/** The wrapped text of `code`: what the parser and the type checker read. */
export function wrapScript(code: string): string {
  return `${PREFIX}${code}\n})`;
}

/**
 * The parsed script, or undefined when it does not parse (as TypeScript, then as JavaScript): the
 * run itself then reports the syntax error, with the sandbox's own position.
 */
export function parseScript(ts: TypeScript, code: string): ParsedScript | undefined {
  const text = wrapScript(code);
  for (const kind of [ts.ScriptKind.TS, ts.ScriptKind.JS]) {
    const name = kind === ts.ScriptKind.TS ? SCRIPT_FILE.ts : SCRIPT_FILE.js;
    const file = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true, kind);
    if ((file as SourceFile & { parseDiagnostics?: readonly unknown[] }).parseDiagnostics?.length) continue;
    if (!wrapsWhole(ts, file)) return undefined;
    return {
      ts,
      file,
      at: (position) => {
        const { line, character } = file.getLineAndCharacterOfPosition(position);
        return { line, column: character + 1 };
      },
    };
  }
  return undefined;
}

/** The wrapper is one statement: a script that closes it early (`}); …`) is left to the sandbox, which refuses it. */
function wrapsWhole(ts: TypeScript, file: SourceFile): boolean {
  return file.statements.length === 1 && ts.isExpressionStatement(file.statements[0]!);
}
