/** A valid `run` request. */
export interface RunArguments {
  readonly code: string;
  readonly timeoutSeconds?: number;
}

/** Checks `run`'s arguments; returns them, or a message naming the bad field and what it must be. */
export function validateRunArguments(args: unknown, maxTimeoutSeconds: number): RunArguments | string {
  if (args === undefined || args === null || typeof args !== 'object' || Array.isArray(args)) {
    return 'arguments must be an object { code: string, timeoutSeconds?: number }.';
  }
  const record = args as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => key !== 'code' && key !== 'timeoutSeconds');
  if (unknown.length > 0) {
    return `unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; run takes only "code" and "timeoutSeconds".`;
  }
  const { code, timeoutSeconds } = record;
  if (typeof code !== 'string') return `"code" must be a string of JavaScript, got ${typeName(code)}.`;
  if (code.trim() === '') return '"code" is empty; pass the script to run.';
  if (timeoutSeconds === undefined) return { code };
  if (typeof timeoutSeconds !== 'number' || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > maxTimeoutSeconds) {
    return `"timeoutSeconds" must be a number greater than 0 and at most ${maxTimeoutSeconds}, got ${typeof timeoutSeconds === 'number' ? timeoutSeconds : typeName(timeoutSeconds)}.`;
  }
  return { code, timeoutSeconds };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
}
