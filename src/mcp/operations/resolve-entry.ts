import type { LoadedConfig, ResolvedServerConfig } from '../../config/index.js';
import { BerryError } from '../../common/errors.js';

/** The entry named `server` in `loaded`: MCP_UNKNOWN_SERVER, its own config error, or MCP_SERVER_DISABLED otherwise. */
export function resolveEntry(loaded: LoadedConfig, server: string): ResolvedServerConfig {
  const slot = loaded.servers.find((s) => s.name === server);
  if (!slot) {
    const names = loaded.servers.map((s) => s.name);
    throw new BerryError(
      'MCP_UNKNOWN_SERVER',
      names.length > 0
        ? `Unknown server "${server}". Configured: ${names.join(', ')} (from ${loaded.path}).`
        : `Unknown server "${server}": no servers are configured (${loaded.path}${loaded.exists ? ' has none' : ' does not exist'}).`,
    );
  }
  if (slot.status === 'error') throw slot.error;
  if (slot.status === 'disabled') {
    throw new BerryError(
      'MCP_SERVER_DISABLED',
      `Server "${server}" is disabled ("enabled": false in ${loaded.path}). Enable it there to use it.`,
    );
  }
  return slot.config;
}
