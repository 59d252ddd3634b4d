import { isBerryError } from '../common/errors.js';
import type { RunError } from './types.js';
import { findUnclosed } from './unclosed.js';

/** Run-ending conditions the runtime detects itself (as opposed to something the script threw). */
export type LimitCode = 'SCRIPT_TIMEOUT' | 'SCRIPT_MEMORY_LIMIT' | 'SCRIPT_ABORTED';

export function limitError(code: LimitCode, limits: { timeoutMs: number; memoryLimitMb: number }): RunError {
  const message =
    code === 'SCRIPT_TIMEOUT'
      ? `The script did not finish within its time limit of ${limits.timeoutMs} ms (timeoutMs), ` +
        'time awaiting tools included. Do less in one run, or raise the limit.'
      : code === 'SCRIPT_MEMORY_LIMIT'
        ? `The script used more than its memory limit of ${limits.memoryLimitMb} MB (memoryLimitMb) and was stopped. ` +
          'Hold less data at once (process results as they arrive), or raise the limit.'
        : 'The script run was aborted by its caller.';
  return { name: 'BerryError', message, code };
}

export function resultTooLarge(limitBytes: number): RunError {
  return {
    name: 'RangeError',
    message: `The return value is larger than ${limitBytes} bytes as JSON (outputLimitBytes). Return less, or print it in parts with text().`,
    code: 'SCRIPT_ERROR',
  };
}

export function resultTooDeep(maxDepth: number): RunError {
  return {
    name: 'RangeError',
    message: `The return value nests more than ${maxDepth} levels of arrays and objects. Return a flatter value.`,
    code: 'SCRIPT_ERROR',
  };
}

export function setupFailed(message: string): RunError {
  return { name: 'BerryError', message: `The sandbox could not be set up: ${message}`, code: 'SCRIPT_SETUP_FAILED' };
}

export function unexpectedEnd(): RunError {
  return { name: 'Error', message: 'The script ended without settling its main function (did it close the wrapper with "})"?).', code: 'SCRIPT_ERROR' };
}

/** What the bootstrap reports for a thrown value: see describe() in finish-source.ts. */
interface ThrownShape {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly frames?: unknown;
}

/** An uncaught throw: the script's own name and message, its string `code` or SCRIPT_ERROR. */
export function thrownError(shape: ThrownShape, filename: string): RunError {
  const name = typeof shape.name === 'string' && shape.name !== '' ? shape.name : 'Error';
  const message = typeof shape.message === 'string' ? shape.message : String(shape.message);
  const code = typeof shape.code === 'string' ? shape.code : 'SCRIPT_ERROR';
  const position = typeof shape.frames === 'string' ? positionIn(shape.frames, filename) : undefined;
  const stack = typeof shape.frames === 'string' ? ownFrames(shape.frames, filename) : undefined;
  return { name, message, code, ...position, ...(stack === undefined ? {} : { stack }) };
}

/**
 * A compile error from isolated-vm: its message ends in " [file:line:column]", already in the
 * user's numbering thanks to lineOffset. A position past the script's last line is in the wrapper
 * around it: the script left something open, so say what, at the script's last real line. Or
 * TypeScript that stripping types cannot run (typescript/compile-typescript.ts), positioned already.
 */
export function compileError(error: unknown, filename: string, code: string): RunError {
  if (isBerryError(error) && error.code === 'SCRIPT_TYPESCRIPT_UNSUPPORTED') {
    const { line, column } = error as { line?: unknown; column?: unknown };
    return {
      name: 'SyntaxError',
      message: error.message,
      code: error.code,
      ...(typeof line === 'number' && typeof column === 'number' ? { line, column } : {}),
    };
  }
  const name = error instanceof Error ? error.name : 'SyntaxError';
  let message = error instanceof Error ? error.message : String(error);
  const suffix = / \[(.*):(\d+):(\d+)\]$/.exec(message);
  if (suffix === null || suffix[1] !== filename) return { name, message, code: 'SCRIPT_ERROR' };
  message = message.slice(0, suffix.index);
  const line = Number(suffix[2]);
  // V8's line breaks: a script with CR or U+2028 line ends is numbered as V8 numbers it.
  const lines = code.split(/\r\n|[\n\r\u2028\u2029]/);
  if (line <= lines.length && !(line === lines.length && lines[line - 1]!.trim() === '')) {
    return { name, message, code: 'SCRIPT_ERROR', line, column: Number(suffix[3]) };
  }
  let last = lines.length;
  while (last > 1 && lines[last - 1]!.trim() === '') last--;
  const open = findUnclosed(code);
  const why = open === undefined ? message : `${open.what} opened at line ${open.line} is not closed`;
  return { name, message: `unexpected end of script: ${why}`, code: 'SCRIPT_ERROR', line: last, column: lines[last - 1]!.length + 1 };
}

/** The script's own frames of a stack, innermost first: "at f (script.js:2:8)", one a line. */
export function ownFrames(frames: string, filename: string): string | undefined {
  const own = frames
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at ') && positionIn(`\n    ${l}`, filename) !== undefined)
    .slice(0, 50);
  return own.length === 0 ? undefined : own.join('\n');
}

/** The first stack frame in the user's file: "at fn (file:3:7)" or "at file:3:7". */
export function positionIn(frames: string, filename: string): { line: number; column: number } | undefined {
  const marker = `${filename}:`;
  let from = 0;
  for (;;) {
    const at = frames.indexOf(marker, from);
    if (at < 0) return undefined;
    const before = frames[at - 1];
    const match = /^(\d+):(\d+)(?=\)|$|\n)/.exec(frames.slice(at + marker.length, at + marker.length + 24));
    if ((before === '(' || before === ' ') && match !== null) return { line: Number(match[1]), column: Number(match[2]) };
    from = at + marker.length;
  }
}
