/**
 * The auth layer: OAuth sign-in for HTTP servers (the MCP authorization spec), on the SDK's client
 * auth. Sign-in records live in the store (files on the target machine, or a shared Redis); the
 * redirect listener on the local machine.
 */
export { OAuthSession } from './provider.js';
export type { AuthorizationUrlHandler, OAuthSessionOptions } from './provider.js';
export { authRequiredError, mapAuthError } from './map-auth-error.js';
export { TokenStore, recordName } from './token-store.js';
export type { SignInRecord, StoredTokens } from './token-store.js';
export { startRedirectListener, CALLBACK_PATH } from './redirect-listener.js';
export type { RedirectListener } from './redirect-listener.js';
