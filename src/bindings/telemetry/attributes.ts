/** The attributes every span of one server carries: the conventions' and berry-mcp's own (`berry.*`). */
import type { Attributes } from '@opentelemetry/api';
import type { ResolvedServerConfig } from '../../config/index.js';

/** `local`, or the SSH host of a machine identity such as `ssh:user@host:22`: no user name, the port only when not 22. */
export function machineName(identity: string): string {
  if (!identity.startsWith('ssh:')) return identity;
  const rest = identity.slice(4);
  const host = rest.slice(rest.lastIndexOf('@') + 1);
  return host.endsWith(':22') ? host.slice(0, -3) : host;
}

/** Where the server is: never a header, an env value or a URL's query (they may hold secrets). */
export function serverAttributes(config: ResolvedServerConfig, machine: string, mask: (text: string) => string): Attributes {
  const attributes: Attributes = { 'berry.server': config.name, 'berry.machine': machine };
  if (config.kind === 'stdio') {
    attributes['network.transport'] = 'pipe';
    return attributes;
  }
  attributes['network.transport'] = 'tcp';
  try {
    const url = new URL(config.url);
    // Masked: a secret may sit in a host name (lowercased there: the gate masks that rendering too).
    attributes['server.address'] = mask(url.hostname.replace(/^\[|\]$/g, ''));
    attributes['server.port'] = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  } catch {
    // A resolved URL always parses; nothing to add if not.
  }
  return attributes;
}
