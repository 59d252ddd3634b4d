/**
 * Which failures of an HTTP connection are about authorization, as one MCP_AUTH_REQUIRED
 * error naming the command to run. Everything else is left to the generic mapping.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { BerryError, isBerryError, OAuthEndpointError, type BerryErrorCode } from '../common/errors.js';

export function authRequiredError(server: string, detail = 'it needs sign-in'): BerryError {
  return new BerryError(
    'MCP_AUTH_REQUIRED',
    `Server "${server}" requires authorization (${detail}). Ask the user to run \`berry-mcp auth ${server}\` and try again.`,
  );
}

/** Failures of the OAuth machinery that keep their own code (signing in again would not help). */
const OWN_CODES: ReadonlySet<BerryErrorCode> = new Set(['MCP_AUTH_REQUIRED', 'MCP_AUTH_RESPONSE_TOO_LARGE', 'MCP_AUTH_ISSUER_MISMATCH', 'MCP_TOKEN_STORE_UNSAFE']);

/**
 * `duringSignIn`: the failure happened inside an authorization the SDK had started, so even a
 * plain Error (a metadata document that does not match, a refused registration) is about sign-in.
 */
export function mapAuthError(
  error: unknown,
  server: string,
  redact: (text: string) => string,
  duringSignIn = false,
): BerryError | undefined {
  if (isBerryError(error)) return OWN_CODES.has(error.code) || error instanceof OAuthEndpointError ? error : undefined;
  if (error instanceof UnauthorizedError) return authRequiredError(server, 'the server refused the credentials');
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    return authRequiredError(server, error.code === 403 ? 'the server wants more scopes than were granted' : 'the server refused the token');
  }
  if (error instanceof OAuthError) {
    return authRequiredError(server, `sign-in failed: ${redact(`${error.errorCode}${error.message ? `: ${error.message}` : ''}`).slice(0, 300)}`);
  }
  if (duringSignIn && error instanceof Error && !isBerryError(error)) {
    return authRequiredError(server, `sign-in failed: ${redact(error.message).slice(0, 300)}`);
  }
  return undefined;
}
