import type { RunError } from './types.js';

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

/** What the bootstrap reports for a thrown value: see describe() in bootstrap.ts. */
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
  return { name, message, code, ...position };
}

/**
 * A compile error from isolated-vm: its message ends in " [file:line:column]", already in the
 * user's numbering thanks to lineOffset.
 */
export function compileError(error: unknown, filename: string): RunError {
  const name = error instanceof Error ? error.name : 'SyntaxError';
  let message = error instanceof Error ? error.message : String(error);
  const suffix = / \[(.*):(\d+):(\d+)\]$/.exec(message);
  if (suffix === null || suffix[1] !== filename) return { name, message, code: 'SCRIPT_ERROR' };
  message = message.slice(0, suffix.index);
  return { name, message, code: 'SCRIPT_ERROR', line: Number(suffix[2]), column: Number(suffix[3]) };
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
