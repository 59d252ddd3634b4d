/** A valid `run` request. */
export interface RunArguments {
  readonly code: string;
  readonly timeoutSeconds?: number;
  /** 2026-07-28: the state id of an earlier run's result. */
  readonly state?: string;
}

/** Longest `state` argument looked at: an id is 43 characters. */
const MAX_STATE_CHARS = 256;

/** Checks `run`'s arguments (`state` only where `withState`: 2026-07-28); returns them, or a message naming the bad field and what it must be. */
export function validateRunArguments(args: unknown, maxTimeoutSeconds: number, withState = false): RunArguments | string {
  if (args === undefined || args === null || typeof args !== 'object' || Array.isArray(args)) {
    return 'arguments must be an object { code: string, timeoutSeconds?: number }.';
  }
  const record = args as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => key !== 'code' && key !== 'timeoutSeconds' && !(withState && key === 'state'));
  if (unknown.length > 0) {
    const known = withState ? '"code", "timeoutSeconds" and "state"' : '"code" and "timeoutSeconds"';
    return `unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; run takes only ${known}.`;
  }
  const { code, timeoutSeconds, state } = record;
  if (typeof code !== 'string') return `"code" must be a string of JavaScript, got ${typeName(code)}.`;
  if (code.trim() === '') return '"code" is empty; pass the script to run.';
  if (state !== undefined && (typeof state !== 'string' || state.length > MAX_STATE_CHARS)) {
    return `"state" must be the state id (a string) of an earlier run's result, got ${typeName(state)}.`;
  }
  const withId = state === undefined ? {} : { state };
  if (timeoutSeconds === undefined) return { code, ...withId };
  if (typeof timeoutSeconds !== 'number' || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > maxTimeoutSeconds) {
    return `"timeoutSeconds" must be a number greater than 0 and at most ${maxTimeoutSeconds}, got ${typeof timeoutSeconds === 'number' ? timeoutSeconds : typeName(timeoutSeconds)}.`;
  }
  return { code, timeoutSeconds, ...withId };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
}
