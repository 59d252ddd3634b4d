/**
 * The OAuth side of an HTTP connection: the host's sign-in options and the OAuthSession one
 * connection uses (src/auth does the work).
 */
import { OAuthSession } from '../../../auth/index.js';
import type { ResolvedServerConfig } from '../../../config/index.js';
import { createMachineFetch } from '../../../remote/transport/index.js';
import type { Machine } from '../../../remote/machine/index.js';
import type { ConnectionAuthOptions } from './auth-options.js';

export type { ConnectionAuthOptions } from './auth-options.js';

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
    store: auth.store,
    onAuthorizationUrl: auth.onAuthorizationUrl,
    signInTimeoutMs: auth.signInTimeoutMs,
    fetch: createMachineFetch(machine),
  });
}
