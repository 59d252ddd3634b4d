// Type-checking sample scripts with the real tsc, and checking its diagnostics against
// `// @expect TS1234 text…` markers written in the scripts themselves.
//
// A marker applies to the next line that is not a marker: that line must get a diagnostic with
// that code whose message contains every given text (`TS2580|TS2591` accepts either code).
// Any diagnostic on a line without a matching marker is unexpected.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../support/paths.js';

/** The source folder of the sample scripts (the project tsconfig excludes it). */
export const CASES_DIR = path.join(PROJECT_ROOT, 'test', 'typings', 'cases');

const require = createRequire(import.meta.url);
const TSC = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');

export interface Diagnostic {
  /** Path relative to the directory tsc ran in, with forward slashes. */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** For example `TS2322`. */
  readonly code: string;
  /** The message, continuation lines included. */
  readonly message: string;
}

/** Runs tsc in `cwd` with `args` (`--pretty false` is added) and parses its diagnostics. */
export async function runTsc(cwd: string, args: readonly string[]): Promise<Diagnostic[]> {
  const output = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [TSC, '--pretty', 'false', ...args], { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      // Exit status 1 or 2 just means "there were diagnostics".
      if (error !== null && typeof error.code !== 'number') reject(error);
      else resolve(stdout + stderr);
    });
  });
  const diagnostics: Diagnostic[] = [];
  for (const line of output.split('\n')) {
    const match = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line);
    if (match !== null) {
      diagnostics.push({
        file: match[1]!.replace(/\\/g, '/'),
        line: Number(match[2]),
        column: Number(match[3]),
        code: match[4]!,
        message: match[5]!,
      });
    } else if (line.startsWith(' ') && diagnostics.length > 0) {
      const last = diagnostics.pop()!;
      diagnostics.push({ ...last, message: `${last.message}\n${line.trim()}` });
    } else if (line.trim() !== '') {
      // A diagnostic without a position (bad option, missing file): keep it visible.
      diagnostics.push({ file: '', line: 0, column: 0, code: /error (TS\d+)/.exec(line)?.[1] ?? 'TS?', message: line });
    }
  }
  return diagnostics;
}

interface Expectation {
  readonly line: number;
  readonly codes: readonly string[];
  readonly texts: readonly string[];
}

/** The `// @expect` markers of a script. */
export function expectationsOf(source: string): Expectation[] {
  const lines = source.split('\n');
  const out: Expectation[] = [];
  let pending: Omit<Expectation, 'line'>[] = [];
  lines.forEach((text, index) => {
    const marker = /^\s*\/\/ @expect (TS\d+(?:\|TS\d+)*)(.*)$/.exec(text);
    if (marker !== null) {
      const texts = [...marker[2]!.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : m[2]!));
      pending.push({ codes: marker[1]!.split('|'), texts });
      return;
    }
    for (const expectation of pending) out.push({ ...expectation, line: index + 1 });
    pending = [];
  });
  return out;
}

/**
 * Problems of one script: expected diagnostics that did not occur, and diagnostics nobody
 * expected. Empty when the script type-checks exactly as its markers say.
 */
export function mismatches(source: string, diagnostics: readonly Diagnostic[]): string[] {
  const problems: string[] = [];
  const expectations = expectationsOf(source);
  const matched = new Set<Diagnostic>();
  for (const expectation of expectations) {
    const hit = diagnostics.find(
      (d) =>
        !matched.has(d) && d.line === expectation.line && expectation.codes.includes(d.code) && expectation.texts.every((text) => d.message.includes(text)),
    );
    if (hit === undefined) {
      const near = diagnostics.filter((d) => d.line === expectation.line).map(format);
      problems.push(
        `line ${expectation.line}: expected ${expectation.codes.join('|')} mentioning ${JSON.stringify(expectation.texts)}` +
          (near.length > 0 ? `, got:\n    ${near.join('\n    ')}` : ', got no error'),
      );
    } else matched.add(hit);
  }
  // A line may get more than one error for one mistake only if its marker allows that code.
  for (const d of diagnostics) {
    if (matched.has(d)) continue;
    const allowed = expectations.some((e) => e.line === d.line && e.codes.includes(d.code));
    if (!allowed) problems.push(`unexpected ${format(d)}`);
  }
  return problems;
}

function format(d: Diagnostic): string {
  return `${d.file}(${d.line},${d.column}) ${d.code}: ${d.message.replace(/\n/g, '\n      ')}`;
}

/** Copies the .ts/.js files of `from` into `to` (creating it); returns their names. */
export function copyScripts(from: string, to: string): string[] {
  fs.mkdirSync(to, { recursive: true });
  const names = fs
    .readdirSync(from)
    .filter((name) => /\.(ts|js)$/.test(name))
    .sort();
  for (const name of names) fs.copyFileSync(path.join(from, name), path.join(to, name));
  return names;
}
