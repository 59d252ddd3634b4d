import { nodeCrypto } from '../../../common/lazy-node.js';

/** One usable line of a known_hosts file. */
export interface KnownHostEntry {
  readonly marker: 'revoked' | undefined;
  readonly patterns: string;
  readonly keyType: string;
  readonly key: Buffer;
  readonly line: number;
}

export type HostKeyVerdict =
  | { readonly status: 'known' }
  /** No entry for this host and key type. `otherTypes`: key types the file knows for the host. */
  | { readonly status: 'unknown'; readonly otherTypes: readonly string[] }
  /** The host is known with another key of the same type. */
  | { readonly status: 'changed'; readonly expected: KnownHostEntry }
  | { readonly status: 'revoked'; readonly entry: KnownHostEntry };

/** Algorithms the SSH server may use to prove a host key of each type. */
const ALGORITHMS_BY_KEY_TYPE: Readonly<Record<string, readonly string[]>> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};
const DEFAULT_HOST_KEY_ALGORITHMS = Object.values(ALGORITHMS_BY_KEY_TYPE).flat();

/** Parses known_hosts text; `@cert-authority` lines and malformed lines are skipped. */
export function parseKnownHosts(text: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const fields = raw.trim().split(/\s+/);
    if (fields[0] === undefined || fields[0] === '' || fields[0].startsWith('#')) return;
    let marker: KnownHostEntry['marker'];
    if (fields[0].startsWith('@')) {
      if (fields[0] !== '@revoked') return;
      marker = 'revoked';
      fields.shift();
    }
    const [patterns, keyType, keyBase64] = fields;
    if (patterns === undefined || keyType === undefined || keyBase64 === undefined) return;
    const key = Buffer.from(keyBase64, 'base64');
    if (key.length === 0 || keyTypeOf(key) !== keyType) return;
    entries.push({ marker, patterns, keyType, key, line: index + 1 });
  });
  return entries;
}

/** The name known_hosts uses for a host: `host` on port 22, else `[host]:port`. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host.toLowerCase() : `[${host.toLowerCase()}]:${port}`;
}

/** Decides whether `key` (SSH wire format) is the right key for `host:port`. */
export function checkHostKey(entries: readonly KnownHostEntry[], host: string, port: number, key: Buffer): HostKeyVerdict {
  const name = knownHostsName(host, port);
  const type = keyTypeOf(key);
  const forHost = entries.filter((entry) => hostMatches(entry.patterns, name));
  // A revoked key is refused whatever host pattern it was revoked for.
  const revoked = entries.find((entry) => entry.marker === 'revoked' && entry.key.equals(key));
  if (revoked) return { status: 'revoked', entry: revoked };
  const trusted = forHost.filter((entry) => entry.marker === undefined);
  if (trusted.some((entry) => entry.key.equals(key))) return { status: 'known' };
  const sameType = trusted.find((entry) => entry.keyType === type);
  if (sameType) return { status: 'changed', expected: sameType };
  return { status: 'unknown', otherTypes: [...new Set(trusted.map((entry) => entry.keyType))] };
}

/**
 * Host key algorithms with the types already known for the host first, as OpenSSH orders them,
 * so that a server with several host keys proves the one we can check.
 */
export function hostKeyAlgorithms(entries: readonly KnownHostEntry[], host: string, port: number): string[] {
  const name = knownHostsName(host, port);
  const known = entries
    .filter((entry) => entry.marker === undefined && hostMatches(entry.patterns, name))
    .flatMap((entry) => ALGORITHMS_BY_KEY_TYPE[entry.keyType] ?? []);
  return [...new Set([...known, ...DEFAULT_HOST_KEY_ALGORITHMS])];
}

/** The key type named inside an SSH public key blob (`ssh-ed25519`, `ssh-rsa`, …). */
export function keyTypeOf(key: Buffer): string {
  if (key.length < 4) return '';
  const length = key.readUInt32BE(0);
  return length > 64 || 4 + length > key.length ? '' : key.subarray(4, 4 + length).toString('latin1');
}

/** `SHA256:…` as printed by `ssh-keygen -lf` and OpenSSH's prompts. */
export function fingerprintOf(key: Buffer): string {
  return `SHA256:${nodeCrypto().createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

function hostMatches(patterns: string, name: string): boolean {
  if (patterns.startsWith('|1|')) return hashedHostMatches(patterns, name);
  let matched = false;
  for (const raw of patterns.split(',')) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).toLowerCase();
    if (!globMatches(pattern, name)) continue;
    // A matching negated pattern rules the line out, whatever else matches.
    if (negated) return false;
    matched = true;
  }
  return matched;
}

function hashedHostMatches(field: string, name: string): boolean {
  const [, , salt, hash] = field.split('|');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const crypto = nodeCrypto();
  const actual = crypto.createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest();
  return expected.length === actual.length && crypto.timingSafeEqual(expected, actual);
}

function globMatches(pattern: string, name: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === name;
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(name);
}
