/** What an OAuthSession (provider.ts) is made with. */
import type { FetchLike } from '@modelcontextprotocol/client';
import type { ResolvedOAuthConfig } from '../config/index.js';
import type { Machine } from '../remote/machine/index.js';
import type { Store } from '../store/index.js';

/** Shows the user (or a test) the authorization URL. berry-mcp waits for the redirect, not for this promise. */
export type AuthorizationUrlHandler = (url: string, info: { readonly server: string }) => void | Promise<void>;

export interface OAuthSessionOptions {
  readonly machine: Machine;
  readonly server: string;
  readonly serverUrl: string;
  readonly oauth: ResolvedOAuthConfig | undefined;
  /** Where the sign-in record is kept (files on the machine, or a shared Redis). */
  readonly store: Store;
  /** Without it, a sign-in fails with MCP_AUTH_REQUIRED. */
  readonly onAuthorizationUrl: AuthorizationUrlHandler | undefined;
  /** How long to wait for the redirect. */
  readonly signInTimeoutMs: number;
  /** The machine's fetch, for requests to the authorization server (bounded here). */
  readonly fetch: FetchLike;
}
