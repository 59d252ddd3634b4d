/** The host's sign-in options, apart from the OAuth code (which loads the SDK) so a host is cheap to create. */
import type { AuthorizationUrlHandler } from '../../../auth/index.js';

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
