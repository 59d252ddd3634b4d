/**
 * A stable identity for a resolved server entry: equal resolved configurations (whatever their
 * server names) get equal fingerprints and may share a connection; any change gives a new one.
 */
import { nodeCrypto } from '../common/lazy-node.js';

export type CanonicalValue = string | number | boolean | null | readonly CanonicalValue[] | { readonly [key: string]: CanonicalValue };

/** JSON with object keys sorted (by UTF-16 code units) at every level; arrays keep their order. */
export function canonicalJson(value: CanonicalValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    const items = value as readonly CanonicalValue[];
    let out = '[';
    for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(items[i] as CanonicalValue);
    return `${out}]`;
  }
  const record = value as { readonly [key: string]: CanonicalValue };
  const keys = Object.keys(record).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(record[key] as CanonicalValue)}`;
  }
  return `${out}}`;
}

/** Hex SHA-256 of the canonical JSON of `value`. */
export function fingerprint(value: CanonicalValue): string {
  return nodeCrypto().hash('sha256', canonicalJson(value), 'hex');
}

interface Fingerprinted {
  readonly fingerprint: string;
  readonly publicFingerprint: string;
}

/**
 * `entry`, frozen, with `fingerprint` (of `key`) and `publicFingerprint` (of `publicKey`) hashed on
 * their first read, once: hashing loads node:crypto (≈ 4 ms of a start-up on this machine), which
 * a script that calls no server never needs, though the CLI reads the config before it runs.
 */
export function withFingerprints<T extends Fingerprinted>(entry: Omit<T, keyof Fingerprinted>, key: CanonicalValue, publicKey: CanonicalValue): T {
  let full: string | undefined;
  let open: string | undefined;
  const fingerprints: PropertyDescriptorMap = {
    fingerprint: { enumerable: true, get: () => (full ??= fingerprint(key)) },
    publicFingerprint: { enumerable: true, get: () => (open ??= fingerprint(publicKey)) },
  };
  return Object.freeze(Object.defineProperties(entry, fingerprints)) as T;
}
