/** What serve --http lets each token holder, and each of its clients, hold at once. */
export interface HttpLimits {
  /** 2025-11-25 sessions at once, of every holder. */
  readonly maxSessions: number;
  /** Sessions of one holder. */
  readonly maxHolderSessions: number;
  /** Runs one client (a session, or a holder's 2026 requests) executes at once. */
  readonly maxClientConcurrency: number;
  /** Runs one holder's clients execute at once, together. */
  readonly maxHolderConcurrency: number;
  /** `subscriptions/listen` streams one holder keeps open. */
  readonly maxHolderStreams: number;
}

export const DEFAULT_MAX_SESSIONS = 16;
export const DEFAULT_MAX_HOLDER_STREAMS = 16;
/** Past this a listen cap protects nothing (the SDK's own cap per handler). */
const MOST_HOLDER_STREAMS = 1024;

/**
 * Three quarters of `n`, rounded down, at least 1: what one holder (or client) may take of a
 * shared resource by default, the rest out of its reach so that another still finds room at once.
 */
export function share(n: number): number {
  return Math.max(1, Math.floor((3 * n) / 4));
}

/**
 * Fills the defaults of `given` and checks every cap. `limit` is the runs executing at once of the
 * whole serve; `holders` the number of tokens. With one token there is no other holder to keep
 * room for, so a holder's caps default to the server's; each client's (session's) still leaves a
 * quarter to the holder's other clients.
 */
export function normalizeHttpLimits(given: Partial<HttpLimits>, context: { readonly limit: number; readonly holders: number }): HttpLimits {
  const { limit, holders } = context;
  const maxSessions = count(given.maxSessions, DEFAULT_MAX_SESSIONS, 'maxSessions', '--max-sessions', Number.MAX_SAFE_INTEGER);
  return {
    maxSessions,
    maxHolderSessions: count(
      given.maxHolderSessions,
      holders === 1 ? maxSessions : share(maxSessions),
      'maxHolderSessions',
      '--max-holder-sessions',
      maxSessions,
      'maxSessions',
    ),
    maxClientConcurrency: count(given.maxClientConcurrency, share(limit), 'maxClientConcurrency', '--max-client-concurrency', limit, 'maxConcurrency'),
    maxHolderConcurrency: count(
      given.maxHolderConcurrency,
      holders === 1 ? limit : share(limit),
      'maxHolderConcurrency',
      '--max-holder-concurrency',
      limit,
      'maxConcurrency',
    ),
    maxHolderStreams: count(given.maxHolderStreams, DEFAULT_MAX_HOLDER_STREAMS, 'maxHolderStreams', '--max-holder-streams', MOST_HOLDER_STREAMS),
  };
}

function count(value: number | undefined, fallback: number, name: string, flag: string, most: number, mostName?: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > most) {
    const bound = mostName === undefined ? (most === Number.MAX_SAFE_INTEGER ? '' : ` to ${most}`) : ` to ${mostName} (${most})`;
    throw new TypeError(`${name} (serve ${flag}) must be a whole number from 1${bound}, got ${value}`);
  }
  return value;
}
