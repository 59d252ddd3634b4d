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
  /** A 401 or 403 no refresh fixed is going to the SDK, which may start a sign-in. */
  beforeSignIn(): Promise<void>;
  /** The endpoint answered 2xx. */
  answered(): void;
}

export function sessionFetch(base: FetchLike, options: SessionFetchOptions): FetchLike {
  const oauthFetch = boundOAuthFetch(base);
  return async (url, init) => {
    if ((url instanceof URL ? url.href : String(url)) !== options.endpoint) return oauthFetch(url, init);
    const response = await base(url, init);
    if (response.ok) options.answered();
    if (response.status === 403) await options.beforeSignIn();
    if (response.status !== 401) return response;
    const headers = new Headers(init?.headers);
    const sent = /^Bearer (.+)$/i.exec(headers.get('authorization') ?? '')?.[1];
    if (sent === undefined || !options.refreshes) return signInNext(response);
    // A refresh that broke an OAuth bound or the issuer check fails the request: a sign-in would not help.
    const fresh = await options.refresh(sent).catch((error: unknown) => {
      if (isBerryError(error) && error.code !== 'MCP_AUTH_REQUIRED') throw error;
      return undefined;
    });
    if (!fresh) return signInNext(response);
    await response.body?.cancel().catch(() => {});
    headers.set('authorization', `Bearer ${fresh.access_token}`);
    const retried = await base(url, { ...init, headers });
    if (retried.ok) options.answered();
    return retried.status === 401 || retried.status === 403 ? signInNext(retried) : retried;
  };

  async function signInNext(response: Response): Promise<Response> {
    await options.beforeSignIn();
    return response;
  }
}
