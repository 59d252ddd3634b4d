import type { LoadedConfig, ResolvedServerConfig } from '../../config/index.js';
import { BerryError } from '../../common/errors.js';

/** The entry named `server` in `loaded`: MCP_UNKNOWN_SERVER, its own config error, or MCP_SERVER_DISABLED otherwise. */
export function resolveEntry(loaded: LoadedConfig, server: string): ResolvedServerConfig {
  const slot = loaded.servers.find((s) => s.name === server);
  if (!slot)
    throw unknownServer(
      server,
      loaded.servers.map((s) => s.name),
      loaded.path,
      loaded.exists,
    );
  if (slot.status === 'error') throw slot.error;
  if (slot.status === 'disabled') {
    throw new BerryError('MCP_SERVER_DISABLED', `Server "${server}" is disabled ("enabled": false in ${loaded.path}). Enable it there to use it.`);
  }
  return slot.config;
}

/** MCP_UNKNOWN_SERVER for `server`, naming what `path` configures (`hint` follows the list). */
export function unknownServer(server: string, names: readonly string[], path: string, exists: boolean, hint = ''): BerryError {
  return new BerryError(
    'MCP_UNKNOWN_SERVER',
    names.length > 0
      ? `Unknown server "${server}". Configured: ${[...new Set(names)].join(', ')} (from ${path}).${hint}`
      : `Unknown server "${server}": no servers are configured (${path}${exists ? ' has none' : ' does not exist'}).`,
  );
}
