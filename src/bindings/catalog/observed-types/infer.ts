/**
 * The shape of one result value: kinds and keys only. No string, number or boolean of the value
 * is kept; a key that looks like data (an id, a date, a path, an e-mail) turns its object into a
 * map, so the key is not kept either. Bounded work: arrays are sampled (first and last
 * elements), and past MAX_NODES values everything left is `unknown`.
 */
import { mergeShapes } from './merge.js';
import { MAX_DEPTH, MAX_KEY_LENGTH, MAX_KEYS, type Field, type Shape } from './shape.js';

/** Values looked at in one result, at most. */
export const MAX_NODES = 2000;
/** Elements of one array looked at: the first and the last ones. */
const SAMPLE_HEAD = 10;
const SAMPLE_TAIL = 5;
/** An object with at least this many keys whose values are all objects (or all arrays) is a map. */
const MAP_MIN_KEYS = 8;

/** A key a record type would have: short, a name (`entityType`, `@id`, `content-type`). */
const NAME_LIKE = /^[@$]?[A-Za-z_][A-Za-z0-9_.:-]*$/;

/** The shape of `value`, not yet cut to MAX_SHAPE_BYTES (mergeObservations does that). */
export function inferShape(value: unknown): Shape {
  return infer(value, 0, { nodes: MAX_NODES });
}

/** Results repeat their keys call after call: each key is judged once (a bounded cache). */
const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 4096;

/** True for a key that is more likely a value than a field name. */
export function looksLikeData(key: string): boolean {
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    verdict = judgeKey(key);
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(key, verdict);
  }
  return verdict;
}

function judgeKey(key: string): boolean {
  return (
    key.length > MAX_KEY_LENGTH ||
    !NAME_LIKE.test(key) ||
    // ids, dates, timestamps, phone numbers
    /\d{4,}/.test(key) ||
    // hashes and uuids
    (/\d/.test(key) && /[0-9a-f]{8,}/i.test(key))
  );
}

interface Budget {
  nodes: number;
}

function infer(value: unknown, depth: number, budget: Budget): Shape {
  if (--budget.nodes < 0 || depth > MAX_DEPTH) return 'unknown';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      break;
    default:
      return 'unknown';
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { a: null };
    return { a: sampledShape(value, depth + 1, budget) };
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > MAX_KEYS || keys.some(looksLikeData)) {
    return {
      r:
        keys.length === 0
          ? 'unknown'
          : sampledShape(
              keys.map((key) => record[key]),
              depth + 1,
              budget,
            ),
    };
  }
  const fields = keys.map((key): Field => [key, 1, infer(record[key], depth + 1, budget)]);
  if (fields.length >= MAP_MIN_KEYS && sameCompoundKind(fields)) {
    return { r: fields.reduce<Shape>((merged, [, , shape]) => mergeShapes(merged, shape), fields[0]![2]) };
  }
  return { o: fields, n: 1 };
}

/** The merged shape of the first and last values (a non-empty list). */
function sampledShape(values: readonly unknown[], depth: number, budget: Budget): Shape {
  let merged = infer(values[0], depth, budget);
  const head = Math.min(values.length, SAMPLE_HEAD);
  for (let i = 1; i < head && merged !== 'unknown'; i++) merged = mergeShapes(merged, infer(values[i], depth, budget));
  for (let i = Math.max(head, values.length - SAMPLE_TAIL); i < values.length && merged !== 'unknown'; i++) {
    merged = mergeShapes(merged, infer(values[i], depth, budget));
  }
  return merged;
}

function sameCompoundKind(fields: readonly Field[]): boolean {
  const kinds = new Set(fields.map(([, , shape]) => (typeof shape === 'string' ? shape : 'a' in shape ? 'array' : 'u' in shape ? 'union' : 'object')));
  return kinds.size === 1 && (kinds.has('array') || kinds.has('object'));
}
