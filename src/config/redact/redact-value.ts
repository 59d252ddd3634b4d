/**
 * Redaction of whole values a server returns (tool results, resource contents, prompt messages,
 * tool lists and descriptions) before anyone sees them: a server may echo another entry's
 * credentials (they share the environment a `${VAR}` came from) or its own. Every string and
 * every key, at any depth, goes through the config's redactor; only what changed is copied.
 */
import { ProtocolError } from '../../common/errors.js';
import { createRedactor, maskedInValues, secretsOfServers } from './redact.js';
import type { ServerSlot } from '../types.js';

/** Deeper values are refused rather than passed on unchecked (a recursive walk has a stack). */
export const MAX_REDACTED_DEPTH = 1000;

/** Returns `value`, or a copy with every configured secret masked. */
export type ValueRedactor = <T>(value: T, server: string) => T;

/** The redactor of a config without secrets to mask: every value as it is. */
export const noRedaction: ValueRedactor = (value) => value;

const built = new WeakMap<readonly ServerSlot[], ValueRedactor>();

/** The redactor of one loaded config's servers, built once per config (loadConfig hands back the same list while the file is unchanged). */
export function valueRedactorOf(servers: readonly ServerSlot[]): ValueRedactor {
  let redactor = built.get(servers);
  if (redactor === undefined) built.set(servers, (redactor = createValueRedactor(servers)));
  return redactor;
}

/** The redactor of values from any server of this config: every server's secrets (see maskedInValues). */
export function createValueRedactor(servers: readonly ServerSlot[]): ValueRedactor {
  return valueRedactorOfSecrets(secretsOfServers(servers));
}

/** The redactor of values for these secrets (those maskedInValues keeps). */
export function valueRedactorOfSecrets(all: readonly string[]): ValueRedactor {
  const secrets = all.filter(maskedInValues);
  if (secrets.length === 0) return noRedaction;
  const redact = createRedactor(secrets, { fragments: false });
  return <T>(value: T, server: string): T => walk(value, redact, 0, server) as T;
}

function walk(value: unknown, redact: (text: string) => string, depth: number, server: string): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACTED_DEPTH) {
    throw new ProtocolError(
      `Server "${server}" returned a value nested more than ${MAX_REDACTED_DEPTH} levels deep; it was not passed on (it could not be checked for secrets). The connection stays open.`,
    );
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = walk(item, redact, depth + 1, server);
      if (next !== item) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  // Results are parsed JSON; anything else (a Buffer, a class) is no server's text.
  if (proto !== Object.prototype && proto !== null) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const next = walk(item, redact, depth + 1, server);
    const nextKey = redact(key);
    if (next === item && nextKey === key) continue;
    copy ??= { ...record };
    if (nextKey !== key) delete copy[key];
    // defineProperty: a key "__proto__" stays a plain key.
    Object.defineProperty(copy, nextKey, { value: next, writable: true, enumerable: true, configurable: true });
  }
  return copy ?? value;
}
