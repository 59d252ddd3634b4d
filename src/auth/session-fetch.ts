/**
 * The fetch an OAuth session gives the Streamable HTTP transport. Requests to anything but the MCP
 * endpoint are the SDK's OAuth requests (discovery, registration, token): they get the OAuth
 * bounds. A 401 to a request that carried our access token gets one refresh (under the lock) and
 * one retry; when no fresh token can be had, the 401 goes to the SDK, which starts a sign-in.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { isBerryError } from '../common/errors.js';
import { boundOAuthFetch } from './oauth-fetch.js';
import type { StoredTokens } from './token-store.js';

export interface SessionFetchOptions {
  /** The MCP endpoint's href. */
  readonly endpoint: string;
  /** False for client_credentials: a new token comes from the SDK's own flow. */
  readonly refreshes: boolean;
  /** Fresh tokens instead of those carrying the stale access token, or undefined. */
  refresh(staleAccessToken: string): Promise<StoredTokens | undefined>;
  /**
   * Called before a 401 (or a 403 asking for more scope) reaches the SDK, which then signs in: the
   * v2 SDK reads the redirect URI for its registration before any other hook of the provider.
   */
  beforeSignIn?(): Promise<void>;
}

export function sessionFetch(base: FetchLike, options: SessionFetchOptions): FetchLike {
  const oauthFetch = boundOAuthFetch(base);
  return async (url, init) => {
    if ((url instanceof URL ? url.href : String(url)) !== options.endpoint) return oauthFetch(url, init);
    const response = await base(url, init);
    const toSdk = async (answer: Response = response): Promise<Response> => {
      if (answer.status === 401 || (answer.status === 403 && /insufficient_scope/i.test(answer.headers.get('www-authenticate') ?? '')))
        await options.beforeSignIn?.();
      return answer;
    };
    if (response.status !== 401 || !options.refreshes) return toSdk();
    const headers = new Headers(init?.headers);
    const sent = /^Bearer (.+)$/i.exec(headers.get('authorization') ?? '')?.[1];
    if (sent === undefined) return toSdk();
    // A refresh that broke an OAuth bound or the issuer check fails the request: a sign-in would not help.
    const fresh = await options.refresh(sent).catch((error: unknown) => {
      if (isBerryError(error) && error.code !== 'MCP_AUTH_REQUIRED') throw error;
      return undefined;
    });
    if (!fresh) return toSdk();
    await response.body?.cancel().catch(() => {});
    headers.set('authorization', `Bearer ${fresh.access_token}`);
    // Refused even fresh (the resource moved to another authorization server): a sign-in follows.
    return toSdk(await base(url, { ...init, headers }));
  };
}
