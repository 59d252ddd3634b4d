/**
 * The type of a tool's results as berry-mcp observed them: a small JSON structure that names
 * kinds and keys, never values. It is what is kept in memory, merged across calls, written beside
 * the saved catalog and read back (so reading checks every part of it).
 *
 * - `"string" | "number" | "boolean" | "null" | "unknown"`
 * - `{ a: Shape | null }`: an array of Shape (`null`: only empty arrays seen)
 * - `{ o: [key, count, Shape][], n }`: an object seen `n` times; a key seen fewer times is optional
 * - `{ r: Shape }`: an object used as a map (`{ [key: string]: Shape }`): its keys are data
 * - `{ u: Shape[] }`: a union of at most MAX_UNION kinds, never two of the same kind
 */

export type Primitive = 'string' | 'number' | 'boolean' | 'null';
export type Shape =
  | Primitive
  | 'unknown'
  | { readonly a: Shape | null }
  | { readonly o: readonly Field[]; readonly n: number }
  | { readonly r: Shape }
  | { readonly u: readonly Shape[] };
/** `[key, times seen, shape]`: an array, so a key such as `__proto__` is only ever data. */
export type Field = readonly [string, number, Shape];

/** Nesting kept below the result itself; deeper values become `unknown`. */
export const MAX_DEPTH = 8;
/** Distinct keys of one object before it is taken for a map (`{ [key: string]: T }`). */
export const MAX_KEYS = 32;
/** Kinds in one union before it becomes `unknown`. */
export const MAX_UNION = 4;
/** Largest shape of one tool as JSON; a larger one is cut down (deepest levels first). */
export const MAX_SHAPE_BYTES = 4096;
/** Longest key kept; a longer key is data (the object becomes a map). */
export const MAX_KEY_LENGTH = 40;

const PRIMITIVES: ReadonlySet<unknown> = new Set(['string', 'number', 'boolean', 'null', 'unknown']);

export type Kind = Primitive | 'array' | 'object';

export function kindOf(shape: Exclude<Shape, 'unknown' | { readonly u: readonly Shape[] }>): Kind {
  if (typeof shape === 'string') return shape;
  return 'a' in shape ? 'array' : 'object';
}

/** A shape read from a file, or undefined when any part of it is not one we write. */
export function parseShape(value: unknown, depth = 0): Shape | undefined {
  if (depth > MAX_DEPTH + 2) return undefined;
  if (typeof value === 'string') return PRIMITIVES.has(value) ? (value as Shape) : undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const record = value as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === 'a') {
    if (record['a'] === null) return { a: null };
    const element = parseShape(record['a'], depth + 1);
    return element === undefined ? undefined : { a: element };
  }
  if (keys.length === 1 && keys[0] === 'r') {
    const values = parseShape(record['r'], depth + 1);
    return values === undefined ? undefined : { r: values };
  }
  if (keys.length === 1 && keys[0] === 'u') {
    const members = record['u'];
    if (!Array.isArray(members) || members.length < 2 || members.length > MAX_UNION) return undefined;
    const parsed = members.map((m) => parseShape(m, depth + 1));
    return parsed.every((m): m is Shape => m !== undefined && m !== 'unknown' && !(typeof m === 'object' && 'u' in m)) ? { u: parsed } : undefined;
  }
  if (keys.length === 2 && 'o' in record && 'n' in record) {
    const n = record['n'];
    const fields = record['o'];
    if (!isCount(n) || !Array.isArray(fields) || fields.length > MAX_KEYS) return undefined;
    const parsed: Field[] = [];
    const seen = new Set<string>();
    for (const field of fields) {
      if (!Array.isArray(field) || field.length !== 3) return undefined;
      const [key, count, shape] = field as unknown[];
      if (typeof key !== 'string' || key.length > MAX_KEY_LENGTH || seen.has(key) || !isCount(count) || count > n) return undefined;
      const inner = parseShape(shape, depth + 1);
      if (inner === undefined) return undefined;
      seen.add(key);
      parsed.push([key, count, inner]);
    }
    return { o: parsed, n };
  }
  return undefined;
}

export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** The shape cut to at most MAX_SHAPE_BYTES of JSON: deeper levels become `unknown` until it fits. */
export function boundShape(shape: Shape): Shape {
  // A walk that stops early is cheaper than JSON on every call; JSON decides near the limit.
  if (sizeAtMost(shape, MAX_SHAPE_BYTES / 2) || JSON.stringify(shape).length <= MAX_SHAPE_BYTES) return shape;
  for (let depth = MAX_DEPTH - 1; depth >= 1; depth--) {
    const cut = cutBelow(shape, depth);
    if (JSON.stringify(cut).length <= MAX_SHAPE_BYTES) return cut;
  }
  return 'unknown';
}

/** True when the shape's JSON is surely at most `budget` characters (key characters ×2 for escapes). */
function sizeAtMost(shape: Shape, budget: number): boolean {
  const stack: Shape[] = [shape];
  let size = 0;
  while (stack.length > 0) {
    const next = stack.pop()!;
    size += 12;
    if (typeof next === 'string') continue;
    if ('a' in next) {
      if (next.a !== null) stack.push(next.a);
    } else if ('r' in next) stack.push(next.r);
    else if ('u' in next) stack.push(...next.u);
    else {
      for (const [key, , inner] of next.o) {
        size += key.length * 2 + 24;
        stack.push(inner);
      }
    }
    if (size > budget) return false;
  }
  return true;
}

function cutBelow(shape: Shape, depth: number): Shape {
  if (typeof shape === 'string') return shape;
  if (depth <= 0) return 'unknown';
  if ('a' in shape) return { a: shape.a === null ? null : cutBelow(shape.a, depth - 1) };
  if ('r' in shape) return { r: cutBelow(shape.r, depth - 1) };
  if ('u' in shape) {
    const members = shape.u.map((m) => cutBelow(m, depth));
    return members.includes('unknown') ? 'unknown' : { u: members };
  }
  return { o: shape.o.map(([key, n, inner]) => [key, n, cutBelow(inner, depth - 1)] as const), n: shape.n };
}
