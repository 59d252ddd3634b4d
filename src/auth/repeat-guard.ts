/**
 * No sign-in loop: when the server refuses again, right after a sign-in, what that sign-in was for
 * (a step-up to scopes the authorization server does not grant, a token it will not take), the
 * same sign-in would end the same way, so it is refused instead. Any answer from the server in
 * between (a 2xx) ends the guard.
 */
import { authRequiredError } from './map-auth-error.js';

/** The scopes of an authorization URL, in a fixed order. */
function scopesOf(url: URL): string {
  return (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean).sort().join(' ');
}

export class RepeatSignInGuard {
  /** The scopes of the sign-in just completed, until the server answers. */
  #justSignedIn: string | undefined;
  /** The scopes of the sign-in waiting for its redirect. */
  #asking: string | undefined;

  /** Throws MCP_AUTH_REQUIRED when `url` asks for what the sign-in just made asked for. */
  asking(server: string, url: URL): void {
    const scopes = scopesOf(url);
    if (this.#justSignedIn === scopes) {
      throw authRequiredError(server, `the server refused again right after a sign-in for ${scopes ? `"${scopes}"` : 'it'}, so another would end the same way; check what the authorization server grants`);
    }
    this.#asking = scopes;
  }

  signedIn(): void {
    this.#justSignedIn = this.#asking;
  }

  answered(): void {
    this.#justSignedIn = undefined;
  }
}
