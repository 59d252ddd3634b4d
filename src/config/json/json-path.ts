/**
 * JSONPath-like labels for places in the config file, e.g. `$.mcpServers["my-srv"].args[2]`.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `base.key` when `key` is an identifier, `base["key"]` otherwise. */
export function memberPath(base: string, key: string): string {
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

export function indexPath(base: string, index: number): string {
  return `${base}[${index}]`;
}

/** The label of a location given as keys and indexes from the root. */
export function formatJsonPath(segments: readonly (string | number)[]): string {
  let path = '$';
  for (const segment of segments) {
    path = typeof segment === 'number' ? indexPath(path, segment) : memberPath(path, segment);
  }
  return path;
}

/** `array`, `null`, or the `typeof` of a JSON value: for "got …" in messages, never the value. */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export { isJsonObject } from '../../common/json-object.js';
