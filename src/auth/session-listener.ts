/**
 * Which loopback port a sign-in listens on: `oauth.redirectPort`, else the port the stored
 * dynamic registration names (reused, so the client need not register again), else a new one.
 */
import type { ResolvedOAuthConfig } from '../config/index.js';
import { BerryError } from '../common/errors.js';
import { startRedirectListener, type RedirectListener } from './redirect-listener.js';

/** `forgetClient` drops the stored registration when its port is taken (a new one is registered). */
export async function listenForRedirect(
  config: ResolvedOAuthConfig | undefined,
  storedClient: unknown,
  forgetClient: () => Promise<void>,
): Promise<RedirectListener> {
  const wanted = config?.redirectPort;
  if (wanted !== undefined) {
    return startRedirectListener(wanted).catch((error: NodeJS.ErrnoException) => {
      throw new BerryError(
        'MCP_AUTH_REQUIRED',
        `Cannot listen for the sign-in redirect on 127.0.0.1:${wanted} (${error.code ?? error.message}); free the port or change "oauth.redirectPort".`,
      );
    });
  }
  const registered = portOf((storedClient as { redirect_uris?: string[] } | undefined)?.redirect_uris?.[0]);
  if (registered !== undefined && config?.clientId === undefined) {
    const reused = await startRedirectListener(registered).catch(() => undefined);
    if (reused) return reused;
    await forgetClient();
  }
  return startRedirectListener(0);
}

function portOf(uri: string | undefined): number | undefined {
  if (uri === undefined) return undefined;
  try {
    const url = new URL(uri);
    return url.hostname === '127.0.0.1' && url.port !== '' ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}
