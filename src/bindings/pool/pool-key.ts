/**
 * The one place that builds pool keys and scopes, and reads them back. A key names what may share
 * a connection: machine identity + connection lifetime + working directory + resolved-config
 * fingerprint. A scope names one config read: machine identity + working directory + config file.
 */

/** The key of the connection for one resolved server entry. */
export function poolKey(identity: string, lifetime: string, cwd: string, fingerprint: string): string {
  return `${identity}\n${lifetime}\n${cwd}\n${fingerprint}`;
}

/** The scope of one config file read on one machine from one working directory. */
export function poolScope(identity: string, cwd: string, configPath: string): string {
  return `${identity}\n${cwd}\n${configPath}`;
}

/** The prefix every key of a machine starts with: `pool.hasOpen(machinePrefix(id))` asks "anything open there?". */
export function machinePrefix(identity: string): string {
  return `${identity}\n`;
}
