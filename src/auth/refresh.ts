/**
 * Token refresh under the cross-process lock: whoever holds the lock re-reads the record first, so
 * a refresh token another process already spent is never sent again; it takes that process's
 * new tokens instead.
 */
import { OAuthError, OAuthErrorCode, refreshAuthorization, type OAuthClientProvider } from '@modelcontextprotocol/client';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';
import { isBerryError } from '../common/errors.js';
import { checkMetadataIssuer } from './issuer-check.js';
import type { SignInRecord, StoredTokens } from './token-store.js';

/** Refresh this long before the stated expiry (at most half the lifetime), so no request leaves with a dying token. */
const REFRESH_MARGIN_MS = 60_000;

export interface RefreshContext {
  /** The server's name, for errors. */
  readonly server: string;
  /** Runs `fn` under the record's cross-process lock. */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
  /** The record as stored now (not a cached copy). */
  read(): Promise<SignInRecord>;
  update(change: (record: SignInRecord) => SignInRecord): Promise<void>;
  clientInformation(): Promise<OAuthClientInformationMixed | undefined>;
  readonly addClientAuthentication?: OAuthClientProvider['addClientAuthentication'];
  /** The bounded OAuth fetch (oauth-fetch.ts). */
  readonly fetch: FetchLike;
}

export function expiresSoon(tokens: StoredTokens): boolean {
  if (typeof tokens.expires_in !== 'number') return false;
  const lifetimeMs = tokens.expires_in * 1000;
  return Date.now() >= tokens.obtained_at + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2);
}

/**
 * Fresh tokens to use instead of those carrying `staleAccessToken`, or undefined when there are
 * none (then the caller signs in). A refusal by the authorization server deletes the tokens; a
 * network or server failure keeps them for the next try. A response past the OAuth bounds, or
 * from the wrong issuer, rejects with its own code (signing in again would not help).
 */
export function refreshUnderLock(context: RefreshContext, staleAccessToken: string): Promise<StoredTokens | undefined> {
  return context.withLock(async () => {
    const record = await context.read();
    const tokens = record.tokens;
    if (!tokens) return undefined;
    if (tokens.access_token !== staleAccessToken && !expiresSoon(tokens)) return tokens;
    const discovery = record.discovery;
    const client = await context.clientInformation();
    if (!tokens.refresh_token || !discovery || !client) {
      await context.update(dropTokens);
      return undefined;
    }
    const resource = discovery.resourceMetadata?.resource;
    // No caller's signal here, only the OAuth deadline: a refresh cut off after the server rotated
    // the refresh token would lose both the old one and the new one.
    // A record stored before the check was made must pass it too before a refresh token leaves.
    checkMetadataIssuer(context.server, discovery);
    try {
      const fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
        ...(discovery.authorizationServerMetadata ? { metadata: discovery.authorizationServerMetadata } : {}),
        clientInformation: client,
        refreshToken: tokens.refresh_token,
        ...(resource ? { resource: new URL(resource) } : {}),
        ...(context.addClientAuthentication ? { addClientAuthentication: context.addClientAuthentication } : {}),
        fetchFn: context.fetch,
      });
      const stored: StoredTokens = {
        ...fresh,
        // A server that does not rotate refresh tokens keeps the old one valid.
        refresh_token: fresh.refresh_token ?? tokens.refresh_token,
        ...(tokens.issuer ? { issuer: tokens.issuer } : {}),
        obtained_at: Date.now(),
      };
      await context.update((r) => ({ ...r, tokens: stored }));
      return stored;
    } catch (error) {
      if (isBerryError(error)) throw error;
      if (error instanceof OAuthError && error.code !== OAuthErrorCode.ServerError) await context.update(dropTokens);
      return undefined;
    }
  });
}

export function dropTokens(record: SignInRecord): SignInRecord {
  const { tokens: _tokens, ...rest } = record;
  return rest;
}
