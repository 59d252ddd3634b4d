/**
 * Which failures of an HTTP connection are about authorization, as one MCP_AUTH_REQUIRED
 * error naming the command to run. Everything else is left to the generic mapping.
 */
import { IssuerMismatchError, OAuthError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import { BerryError, isBerryError, OAuthEndpointError, type BerryErrorCode } from '../common/errors.js';

export function authRequiredError(server: string, detail = 'it needs sign-in'): BerryError {
  return new BerryError(
    'MCP_AUTH_REQUIRED',
    `Server "${server}" requires authorization (${detail}). Ask the user to run \`berry-mcp auth ${server}\` and try again.`,
  );
}

/** Failures of the OAuth machinery that keep their own code (signing in again would not help). */
const OWN_CODES: ReadonlySet<BerryErrorCode> = new Set([
  'MCP_AUTH_REQUIRED',
  'MCP_AUTH_RESPONSE_TOO_LARGE',
  'MCP_AUTH_ISSUER_MISMATCH',
  'MCP_TOKEN_STORE_UNSAFE',
  // The shared store did not answer, or holds a record this key does not open.
  'BERRY_STORE_UNAVAILABLE',
  'BERRY_STORE_RECORD_INVALID',
]);

/**
 * `duringSignIn`: the failure happened inside an authorization the SDK had started, so even a
 * plain Error (a metadata document that does not match, a refused registration) is about sign-in.
 */
export function mapAuthError(error: unknown, server: string, redact: (text: string) => string, duringSignIn = false): BerryError | undefined {
  if (isBerryError(error)) return OWN_CODES.has(error.code) || error instanceof OAuthEndpointError ? error : undefined;
  // The SDK's own RFC 8414 / RFC 9207 checks (berry-mcp's run first; see issuer-check.ts).
  if (error instanceof IssuerMismatchError) {
    const where = error.kind === 'metadata' ? 'authorization server metadata names' : 'sign-in redirect came with';
    const rule = error.kind === 'metadata' ? 'RFC 8414 §3.3' : 'RFC 9207';
    return new BerryError(
      'MCP_AUTH_ISSUER_MISMATCH',
      redact(
        `Server "${server}": OAuth mix-up refused: the ${where} issuer ${JSON.stringify(String(error.received).slice(0, 200))}, not ${error.expected ?? '?'} (${rule}).`,
      ),
    );
  }
  if (error instanceof UnauthorizedError) return authRequiredError(server, 'the server refused the credentials');
  if (error instanceof SdkHttpError && (error.code === SdkErrorCode.ClientHttpAuthentication || error.code === SdkErrorCode.ClientHttpForbidden)) {
    return authRequiredError(server, error.status === 403 ? 'the server wants more scopes than were granted' : 'the server refused the token');
  }
  if (error instanceof OAuthError) {
    return authRequiredError(server, `sign-in failed: ${redact(`${error.code}${error.message ? `: ${error.message}` : ''}`).slice(0, 300)}`);
  }
  if (duringSignIn && error instanceof Error && !isBerryError(error)) {
    return authRequiredError(server, `sign-in failed: ${redact(error.message).slice(0, 300)}`);
  }
  return undefined;
}
