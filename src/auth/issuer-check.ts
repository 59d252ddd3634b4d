/**
 * OAuth mix-up defences: the authorization-server metadata must name the issuer it was fetched
 * for (RFC 8414 §3.3), and the redirect's `iss` must name that issuer (RFC 9207), so a response
 * from one authorization server is never taken for another's.
 */
import type { OAuthDiscoveryState } from '@modelcontextprotocol/client';
import { BerryError } from '../common/errors.js';

/** What the redirect's `iss` parameter must be. */
export interface IssuerExpectation {
  readonly issuer: string;
  /** The metadata advertised `authorization_response_iss_parameter_supported`: `iss` must be there. */
  readonly required: boolean;
}

function mismatch(server: string, detail: string): BerryError {
  return new BerryError(
    'MCP_AUTH_ISSUER_MISMATCH',
    `Server "${server}": ${detail}. berry-mcp refused the sign-in, so nothing meant for one authorization server goes to another; check the server's OAuth configuration.`,
  );
}

// RFC 8414 asks for identical strings; a single trailing "/" is tolerated because the SDK
// writes the authorization server URL through `new URL()` (the legacy fallback is "https://host/").
function sameIssuer(expected: string, advertised: string): boolean {
  const trim = (value: string): string => (value.endsWith('/') ? value.slice(0, -1) : value);
  return expected === advertised || trim(expected) === trim(advertised);
}

/**
 * Throws MCP_AUTH_ISSUER_MISMATCH when the metadata's `issuer` is not the URL it was discovered
 * for. Only for an authorization server named by the protected-resource metadata: in the
 * 2025-03-26 fallback the URL is the MCP server's origin, not an issuer identifier, and servers
 * of that era name their issuer freely (the conformance suite's backcompat scenario does).
 */
export function checkMetadataIssuer(server: string, state: OAuthDiscoveryState): void {
  const metadata = state.authorizationServerMetadata;
  if (!metadata || !state.resourceMetadata?.authorization_servers?.length) return;
  const advertised: unknown = metadata.issuer;
  if (typeof advertised !== 'string' || !sameIssuer(String(state.authorizationServerUrl), advertised)) {
    throw mismatch(
      server,
      `the authorization server metadata fetched for ${String(state.authorizationServerUrl)} names the issuer ${JSON.stringify(String(advertised)).slice(0, 200)} (RFC 8414 §3.3)`,
    );
  }
}

export function issuerExpectation(state: OAuthDiscoveryState | undefined): IssuerExpectation | undefined {
  const metadata = state?.authorizationServerMetadata;
  if (!metadata || typeof metadata.issuer !== 'string') return undefined;
  const advertised = (metadata as { authorization_response_iss_parameter_supported?: unknown }).authorization_response_iss_parameter_supported;
  return { issuer: metadata.issuer, required: advertised === true };
}

/** Throws MCP_AUTH_ISSUER_MISMATCH when the redirect's `iss` (null: absent) does not do (RFC 9207). */
export function checkRedirectIssuer(server: string, iss: string | null, expected: IssuerExpectation | undefined): void {
  if (!expected) return;
  // Simple string comparison, as RFC 9207 §2.4 says.
  if (iss === null) {
    if (expected.required) throw mismatch(server, `the sign-in redirect has no "iss" parameter, which ${expected.issuer} promised (RFC 9207)`);
    return;
  }
  if (iss !== expected.issuer) {
    throw mismatch(server, `the sign-in redirect came with "iss" ${JSON.stringify(iss.slice(0, 200))}, not the issuer ${expected.issuer} it was sent to (RFC 9207)`);
  }
}
