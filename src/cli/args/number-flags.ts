import { UsageError } from '../usage.js';

/**
 * How a command reads a number flag: the value as typed and the flag as `--name`; returns the
 * number or throws a UsageError saying what to pass. The command table names one per number flag.
 */
export type NumberRule = (value: string, flag: string) => number;

/** A number from `min` to `max` (`run --timeout`, `run --memory`). */
export function inRange(unit: string, min: number, max: number, options: { whole?: boolean } = {}): NumberRule {
  return (value, flag) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new UsageError(`${flag} needs a number of ${unit} from ${min} to ${max}, got "${value}"`);
    }
    if (options.whole && !Number.isInteger(n)) throw new UsageError(`${flag} needs a whole number of ${unit}, got ${n}`);
    return n;
  };
}

/** Any number above 0 (`serve`, `auth`: the library checks its own bounds). */
export const positive: NumberRule = (value, flag) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} needs a positive number, got "${value}"`);
  return n;
};

/** A whole number above 0: counts. */
export const positiveWhole: NumberRule = (value, flag) => {
  const n = positive(value, flag);
  if (!Number.isInteger(n)) throw new UsageError(`${flag} needs a whole number, got ${n}`);
  return n;
};

/** A whole number of bytes, at least `min`. */
export function bytesAtLeast(min: number): NumberRule {
  return (value, flag) => {
    const n = positive(value, flag);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} needs a whole number of bytes, at least ${min}, got ${n}`);
    return n;
  };
}

/** The runtime's own bounds: a timer can wait at most 2^31-1 ms; isolated-vm needs 8 MB. */
export const RUN_TIMEOUT = inRange('seconds', 0.001, 2_147_483);
export const RUN_MEMORY = inRange('MB', 8, 65_536, { whole: true });
/** `serve --workers`: 0 keeps every run in serve's own process. */
export const SERVE_WORKERS = inRange('worker processes', 0, 64, { whole: true });
/** `search --limit`: mcp_search's own bounds. */
export const SEARCH_LIMIT = inRange('tools', 1, 50, { whole: true });
