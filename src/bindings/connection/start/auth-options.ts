/** The host's sign-in options, apart from the OAuth code (which loads the SDK) so a host is cheap to create. */
import type { AuthorizationUrlHandler } from '../../../auth/index.js';
import type { Store } from '../../../store/index.js';

/** How HTTP connections sign in (see docs/auth.md). */
export interface ConnectionAuthOptions {
  /** Where sign-in records are kept (the host's store). */
  readonly store: Store;
  readonly onAuthorizationUrl: AuthorizationUrlHandler | undefined;
  readonly signInTimeoutMs: number;
}

export interface AuthHostOptions {
  readonly onAuthorizationUrl?: AuthorizationUrlHandler;
  readonly tokenDir?: string;
  readonly signInTimeoutMs?: number;
}

export function normalizeAuthOptions(options: AuthHostOptions, store: Store): ConnectionAuthOptions {
  const signInTimeoutMs = options.signInTimeoutMs ?? 300_000;
  if (!Number.isFinite(signInTimeoutMs) || signInTimeoutMs <= 0) {
    throw new TypeError(`signInTimeoutMs must be a positive number of milliseconds, got ${String(options.signInTimeoutMs)}`);
  }
  return { store, onAuthorizationUrl: options.onAuthorizationUrl, signInTimeoutMs };
}
