/**
 * The OAuthClientProvider berry-mcp gives the SDK's Streamable HTTP transport: sign-in state comes
 * from and goes to the TokenStore (files on the target machine, or a shared Redis). The SDK does discovery, registration,
 * PKCE, the code exchange and step-up; refresh is done here instead (under the cross-process lock),
 * so the SDK is never shown a refresh token and cannot spend one unlocked.
 */
import { nodeCrypto } from '../common/lazy-node.js';
import type {
  FetchLike,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import type { ResolvedOAuthConfig } from '../config/index.js';
import { clientCredentialsRequest, clientMetadataFor, isInteractive, privateKeyJwtAuth } from './client-identity.js';
import { checkMetadataIssuer, checkRedirectIssuer, issuerExpectation } from './issuer-check.js';
import { authRequiredError } from './map-auth-error.js';
import { boundOAuthFetch } from './oauth-fetch.js';
import { sessionFetch } from './session-fetch.js';
import { listenForRedirect } from './session-listener.js';
import { recordRedactor } from './record-redactor.js';
import { expiresSoon, refreshUnderLock } from './refresh.js';
import type { RedirectListener } from './redirect-listener.js';
import { TokenStore, withoutPart, type SignInRecord, type StoredTokens } from './token-store.js';
import type { OAuthSessionOptions } from './session-options.js';

export type { AuthorizationUrlHandler, OAuthSessionOptions } from './session-options.js';

const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

export class OAuthSession implements OAuthClientProvider {
  readonly #options: OAuthSessionOptions;
  readonly #config: ResolvedOAuthConfig | undefined;
  readonly #store: TokenStore;
  #record: SignInRecord | undefined;
  #listener: RedirectListener | undefined;
  /** Kept after the listener closes: the token request repeats the redirect URI. */
  #redirectUrl: string | undefined;
  #state: string | undefined;
  #verifier: string | undefined;
  #pending: Promise<string> | undefined;
  #redirectIss: string | undefined;
  #completing: Promise<void> | undefined;
  #authStarted = false;
  readonly #redactRecord = recordRedactor();
  readonly addClientAuthentication?: OAuthClientProvider['addClientAuthentication'];
  readonly clientMetadataUrl?: string;

  readonly #oauthFetch: FetchLike;
  readonly #endpoint: string;
  readonly #interactive: boolean;

  constructor(options: OAuthSessionOptions) {
    this.#options = options;
    this.#config = options.oauth;
    this.#interactive = isInteractive(options.oauth);
    this.#oauthFetch = boundOAuthFetch(options.fetch);
    this.#endpoint = new URL(options.serverUrl).href;
    this.#store = new TokenStore(options.store, options.serverUrl);
    if (options.oauth?.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.oauth.clientMetadataUrl;
    const signer = privateKeyJwtAuth(options.oauth, options.machine, options.server);
    if (signer) this.addClientAuthentication = signer;
  }

  /** False while a new sign-in must not start (the connect or the request retried right after one). */
  signInAllowed = true;

  /** True while a sign-in waits for its redirect (after the SDK asked to open the URL). */
  get pendingSignIn(): boolean {
    return this.#pending !== undefined;
  }

  /** True while someone waits for that redirect (completeSignIn). */
  get signInAwaited(): boolean {
    return this.#completing !== undefined;
  }

  get redirectUrl(): string | undefined {
    if (!this.#interactive) return undefined;
    return this.#redirectUrl ?? PLACEHOLDER_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataFor(this.#config, this.redirectUrl ?? PLACEHOLDER_REDIRECT);
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    return clientCredentialsRequest(this.#config, scope);
  }

  // While a sign-in waits for its redirect, a second auth() (a concurrent request that met the
  // same 401) joins it: same state, its own verifier and URL are dropped, the user is asked once.
  state(): string {
    if (this.#pending && this.#state !== undefined) return this.#state;
    this.#state = nodeCrypto().randomBytes(24).toString('base64url');
    return this.#state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const config = this.#config;
    if (config?.clientId !== undefined) {
      return { client_id: config.clientId, ...(config.clientSecret !== undefined ? { client_secret: config.clientSecret } : {}) };
    }
    return (await this.#read()).client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    // Configured credentials are not ours to store.
    if (this.#config?.clientId !== undefined) return;
    await this.#update((record) => ({ ...record, client: info }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    let tokens = (await this.#read()).tokens;
    if (tokens && expiresSoon(tokens)) {
      tokens = this.#interactive && tokens.refresh_token ? await this.#refreshLocked(tokens.access_token) : undefined;
    }
    if (!tokens) return undefined;
    // Never the refresh token: the SDK would spend it without the lock.
    const { refresh_token: _refresh, obtained_at: _at, ...rest } = tokens;
    return rest;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const stored: StoredTokens = { ...tokens, obtained_at: Date.now() };
    await this.#update((record) => ({ ...record, tokens: stored }));
  }

  /** True once the SDK has started an authorization with this session (discovery onwards). */
  get authStarted(): boolean {
    return this.#authStarted;
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    this.#authStarted = true;
    // The SDK's auth() starts here: for an interactive grant it only runs when a sign-in is needed
    // (refresh happens in this class), so without a way to show a URL it stops here.
    if (this.#interactive) {
      if (this.#options.onAuthorizationUrl === undefined) throw authRequiredError(this.#options.server);
      if (!this.signInAllowed)
        throw authRequiredError(
          this.#options.server,
          'the server refused again right after a sign-in (the token it just issued, or its scopes), so another would end the same way',
        );
      // The code exchange runs auth() again: it must repeat the redirect URI, not open a new port.
      if (!this.#completing) await this.#ensureListener();
    }
    // A sign-in under way (its code exchange, a request joining it) keeps its authorization server;
    // a new one asks the resource again, so a server that moved to another authorization server is
    // followed there, and the client stamped for the old one is registered anew (SEP-2352).
    return this.#pending || this.#completing ? (await this.#read()).discovery : undefined;
  }

  // Before anything is registered with, or sent to, the authorization server discovery found.
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    checkMetadataIssuer(this.#options.server, state);
    await this.#update((record) => ({ ...record, discovery: state }));
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const handler = this.#options.onAuthorizationUrl;
    const listener = this.#listener;
    if (!handler || !listener || this.#state === undefined) throw authRequiredError(this.#options.server);
    if (this.#pending) return;
    const expected = issuerExpectation(this.#record?.discovery);
    const pending = listener.waitForCode(this.#state, this.#options.signInTimeoutMs, undefined, (iss) => {
      checkRedirectIssuer(this.#options.server, iss, expected);
      this.#redirectIss = iss ?? undefined; // the SDK checks it again at the code exchange
    });
    this.#pending = pending;
    // The port is needed only until the redirect (or the timeout): then it is closed.
    pending.then(
      () => this.#closeListener(listener),
      () => this.#closeListener(listener),
    );
    // The handler may settle whenever it likes (or never): only its failure to start counts.
    Promise.resolve()
      .then(() => handler(authorizationUrl.href, { server: this.#options.server }))
      .catch(() => {});
  }

  saveCodeVerifier(codeVerifier: string): void {
    if (!this.#pending) this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw authRequiredError(this.#options.server, 'no sign-in is in progress');
    return this.#verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') this.#verifier = undefined;
    else await this.#update((record) => withoutPart(record, scope));
  }

  /**
   * Waits for the redirect of the sign-in the SDK started and hands its code and `iss` to `exchange`
   * (finishAuth). Callers of the same sign-in share one wait and exchange; then the listener closes.
   */
  completeSignIn(exchange: (code: string, iss: string | undefined) => Promise<void>): Promise<void> {
    const pending = this.#pending;
    if (!pending) return Promise.reject(authRequiredError(this.#options.server));
    if (!this.#completing) {
      const release = this.#listener?.hold();
      const completing = (async () => exchange(await pending, this.#redirectIss))().finally(() => {
        release?.();
        if (this.#pending === pending) this.#pending = undefined;
        if (this.#completing === completing) this.#completing = undefined;
        void this.close();
      });
      this.#completing = completing;
      // Every caller may have stopped waiting (aborted): the outcome must not go unhandled.
      completing.catch(() => {});
    }
    return this.#completing;
  }

  /** The transport's fetch (session-fetch.ts): OAuth bounds, and one refresh and retry on a 401. */
  wrapFetch(base: FetchLike): FetchLike {
    return sessionFetch(base, {
      endpoint: this.#endpoint,
      refreshes: this.#interactive,
      refresh: (stale) => this.#refreshLocked(stale),
      beforeSignIn: () => this.#readyForSignIn(),
    });
  }

  /** Masks the tokens and registered client secret this session has seen, for errors and logs. */
  redact(text: string): string {
    return this.#redactRecord(this.#record, text);
  }

  async close(): Promise<void> {
    this.#pending = undefined;
    if (this.#listener) await this.#closeListener(this.#listener);
  }

  async #closeListener(listener: RedirectListener): Promise<void> {
    if (this.#listener === listener) this.#listener = undefined;
    await listener.close();
  }

  // Refresh, unless another process did it while we waited for the lock: then take its tokens.
  async #refreshLocked(staleAccessToken: string): Promise<StoredTokens | undefined> {
    return refreshUnderLock(
      {
        server: this.#options.server,
        withLock: (fn) => this.#store.withLock(fn),
        read: () => this.#read(true),
        update: (change) => this.#update(change),
        clientInformation: () => this.clientInformation(),
        ...(this.addClientAuthentication ? { addClientAuthentication: this.addClientAuthentication } : {}),
        fetch: this.#oauthFetch,
      },
      staleAccessToken,
    );
  }

  async #readyForSignIn(): Promise<void> {
    if (this.#interactive && this.#options.onAuthorizationUrl !== undefined && this.signInAllowed && !this.#completing) await this.#ensureListener();
  }

  async #ensureListener(): Promise<void> {
    // Its port taken, a stored registration is forgotten (the next one names the new port).
    const forgetClient = (): Promise<void> =>
      this.#update((record) => ({ serverUrl: record.serverUrl, ...(record.discovery ? { discovery: record.discovery } : {}) }));
    this.#listener ??= await listenForRedirect(this.#config, (await this.#read()).client, forgetClient);
    this.#redirectUrl = this.#listener.redirectUrl;
  }

  async #read(fresh = false): Promise<SignInRecord> {
    if (this.#record && !fresh) return this.#record;
    this.#record = await this.#store.read();
    return this.#record;
  }

  async #update(change: (record: SignInRecord) => SignInRecord): Promise<void> {
    this.#record = await this.#store.update(change);
  }
}
