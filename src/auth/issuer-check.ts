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
// writes the authorization server URL through `new URL()`.
function sameIssuer(expected: string, advertised: string): boolean {
  const trim = (value: string): string => (value.endsWith('/') ? value.slice(0, -1) : value);
  return expected === advertised || trim(expected) === trim(advertised);
}

/**
 * Throws MCP_AUTH_ISSUER_MISMATCH when the metadata's `issuer` does not belong where it was found,
 * before anything is registered with or sent to that authorization server (the SDK's own check is
 * off: it would refuse the 2025-03-26 fallback below). Where an issuer was announced (the
 * protected-resource metadata's `authorization_servers`) it must be that URL (RFC 8414 §3.3). In
 * the 2025-03-26 fallback (no authorization server named) the metadata comes from the MCP server's
 * origin, which is not an issuer identifier: the issuer may have a path there (`http://host/oauth`,
 * as the conformance suite's backcompat server names it), but must be on that origin, without
 * query, fragment or user info.
 */
export function checkMetadataIssuer(server: string, state: OAuthDiscoveryState): void {
  const metadata = state.authorizationServerMetadata;
  if (!metadata) return;
  const advertised: unknown = metadata.issuer;
  const fetchedFor = String(state.authorizationServerUrl);
  const named = JSON.stringify(String(advertised)).slice(0, 200);
  if (state.resourceMetadata?.authorization_servers?.length) {
    if (typeof advertised !== 'string' || !sameIssuer(fetchedFor, advertised)) {
      throw mismatch(server, `the authorization server metadata fetched for ${fetchedFor} names the issuer ${named} (RFC 8414 §3.3)`);
    }
  } else if (typeof advertised !== 'string' || !onOrigin(fetchedFor, advertised)) {
    throw mismatch(
      server,
      `the authorization server metadata at the MCP server's origin ${fetchedFor} (no authorization server was named) names the issuer ${named}, which is not on that origin`,
    );
  }
}

/** `issuer` is a URL on the origin of `base`, with no query, fragment or user info. */
function onOrigin(base: string, issuer: string): boolean {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return false;
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '' || /[?#]/.test(issuer)) return false;
  return url.origin === new URL(base).origin;
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
    throw mismatch(
      server,
      `the sign-in redirect came with "iss" ${JSON.stringify(iss.slice(0, 200))}, not the issuer ${expected.issuer} it was sent to (RFC 9207)`,
    );
  }
}
