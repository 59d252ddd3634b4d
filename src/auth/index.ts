/**
 * The auth layer: OAuth sign-in for HTTP servers (the MCP authorization spec), on the SDK's client
 * auth. Token files live on the target machine; the redirect listener on the local one.
 */
export { OAuthSession } from './provider.js';
export type { AuthorizationUrlHandler, OAuthSessionOptions } from './provider.js';
export { authRequiredError, mapAuthError } from './map-auth-error.js';
export { TokenStore, resolveTokenDir, recordName, TOKEN_DIR_MODE, TOKEN_FILE_MODE } from './token-store.js';
export type { SignInRecord, StoredTokens } from './token-store.js';
export { withFileLock } from './lock.js';
export { startRedirectListener, CALLBACK_PATH } from './redirect-listener.js';
export type { RedirectListener } from './redirect-listener.js';
