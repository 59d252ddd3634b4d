/**
 * `host.authorize` and `host.logout`: an explicit sign-in to one HTTP server (even with tokens
 * stored), and removing what is stored for it.
 */
import { TokenStore, type StoredTokens } from '../../auth/index.js';
import type { ResolvedHttpConfig, ResolvedServerConfig } from '../../config/index.js';
import { BerryError } from '../../common/errors.js';
import type { Machine } from '../../remote/machine/index.js';
import { openConnection } from '../connection/start/open.js';
import type { LogSink } from '../log.js';
import { sendsOwnAuthorization, type ConnectionAuthOptions } from '../connection/start/oauth-session.js';

/** What `authorize` reports after a sign-in. */
export interface AuthorizeResult {
  readonly server: string;
  /** Granted scopes, when the authorization server said. */
  readonly scopes: readonly string[];
  /** Who signed in, from an OpenID id_token (`email`, `name` or `sub`), when there is one. */
  readonly subject?: string;
  /** When the access token expires (ms since the epoch), when known. */
  readonly expiresAt?: number;
}

export interface SignInOptions {
  readonly machine: Machine;
  readonly config: ResolvedHttpConfig;
  readonly log: LogSink;
  readonly auth: ConnectionAuthOptions;
  readonly signal?: AbortSignal;
}

/** The entry as an HTTP one that berry-mcp signs in to, or the reason it is not. */
export function httpConfigFor(config: ResolvedServerConfig, file: string): ResolvedHttpConfig {
  if (config.kind !== 'http') {
    throw new BerryError('MCP_INVALID_ARGUMENT', `Server "${config.name}" is a stdio server; only HTTP servers (entries with "url") sign in.`);
  }
  if (sendsOwnAuthorization(config)) {
    throw new BerryError(
      'MCP_INVALID_ARGUMENT',
      `Server "${config.name}" sends its own "Authorization" header (in ${file}); berry-mcp does not sign in to it. Remove the header to use OAuth.`,
    );
  }
  return config;
}

export async function signIn(options: SignInOptions): Promise<AuthorizeResult> {
  const { machine, config, auth, signal } = options;
  if (!auth.onAuthorizationUrl && config.oauth?.grant !== 'client_credentials') {
    throw new BerryError('MCP_INVALID_ARGUMENT', 'authorize() needs the onAuthorizationUrl option of createHost, to show the user the sign-in page.');
  }
  const store = new TokenStore(auth.store, config.url);
  await store.update((record) => {
    const { tokens: _tokens, ...rest } = record;
    return rest;
  }, signal);
  // A connection of its own, outside the pool: it proves the new token works, then closes.
  const connection = await openConnection({ machine, config, log: options.log, auth, ...(signal ? { signal } : {}) });
  await connection.close('sign-in checked');
  return describeSignIn(config.name, (await store.read(signal)).tokens);
}

export async function signOut(config: ResolvedHttpConfig, auth: ConnectionAuthOptions, signal?: AbortSignal): Promise<boolean> {
  return new TokenStore(auth.store, config.url).remove(signal);
}

function describeSignIn(server: string, tokens: StoredTokens | undefined): AuthorizeResult {
  const subject = tokens?.id_token ? subjectOf(tokens.id_token) : undefined;
  return {
    server,
    scopes: tokens?.scope ? tokens.scope.split(' ').filter(Boolean) : [],
    ...(subject ? { subject } : {}),
    ...(tokens && typeof tokens.expires_in === 'number' ? { expiresAt: tokens.obtained_at + tokens.expires_in * 1000 } : {}),
  };
}

// Display only: the id_token's claims are not verified here, and it is never printed whole.
function subjectOf(idToken: string): string | undefined {
  try {
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    const who = claims['email'] ?? claims['name'] ?? claims['sub'];
    return typeof who === 'string' ? who.slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}
