/**
 * The OAuth side of an HTTP connection: the host's sign-in options and the OAuthSession one
 * connection uses (src/auth does the work).
 */
import { OAuthSession, type AuthorizationUrlHandler } from '../auth/index.js';
import type { ResolvedServerConfig } from '../config/index.js';
import { CancelledError } from '../errors.js';
import { createMachineFetch, type Machine } from '../remote/index.js';

/** How HTTP connections sign in (see docs/auth.md). */
export interface ConnectionAuthOptions {
  readonly tokenDir: string | undefined;
  readonly onAuthorizationUrl: AuthorizationUrlHandler | undefined;
  readonly signInTimeoutMs: number;
}

export interface AuthHostOptions {
  readonly onAuthorizationUrl?: AuthorizationUrlHandler;
  readonly tokenDir?: string;
  readonly signInTimeoutMs?: number;
}

export function normalizeAuthOptions(options: AuthHostOptions): ConnectionAuthOptions {
  const signInTimeoutMs = options.signInTimeoutMs ?? 300_000;
  if (!Number.isFinite(signInTimeoutMs) || signInTimeoutMs <= 0) {
    throw new TypeError(`signInTimeoutMs must be a positive number of milliseconds, got ${String(options.signInTimeoutMs)}`);
  }
  if (options.tokenDir !== undefined && !options.tokenDir.startsWith('/')) {
    throw new TypeError(`tokenDir must be an absolute path on the machine, got ${JSON.stringify(options.tokenDir)}`);
  }
  return { tokenDir: options.tokenDir, onAuthorizationUrl: options.onAuthorizationUrl, signInTimeoutMs };
}

export function sendsOwnAuthorization(config: ResolvedServerConfig): boolean {
  return config.kind === 'http' && Object.keys(config.headers).some((name) => name.toLowerCase() === 'authorization');
}

/** An OAuth session for an HTTP entry, unless it sends its own Authorization header. */
export function createSession(machine: Machine, config: ResolvedServerConfig, auth: ConnectionAuthOptions | undefined): OAuthSession | undefined {
  if (config.kind !== 'http' || !auth || sendsOwnAuthorization(config)) return undefined;
  return new OAuthSession({
    machine,
    server: config.name,
    serverUrl: config.url,
    oauth: config.oauth,
    tokenDir: auth.tokenDir,
    onAuthorizationUrl: auth.onAuthorizationUrl,
    signInTimeoutMs: auth.signInTimeoutMs,
    fetch: createMachineFetch(machine),
  });
}

/** Rejects when `signal` aborts: one caller's way out of a wait it shares with others. */
export function abortPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (): void => reject(new CancelledError('The sign-in was cancelled.'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
