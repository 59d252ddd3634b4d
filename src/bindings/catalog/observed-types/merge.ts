/**
 * Merging two observed shapes (of two calls, or of two array elements): a key missing from some
 * objects becomes optional, kinds that differ become a union (at most MAX_UNION, else `unknown`),
 * and an object whose keys keep changing is taken for a map.
 */
import { kindOf, MAX_KEYS, MAX_UNION, type Field, type Kind, type Shape } from './shape.js';

type Member = Exclude<Shape, 'unknown' | { readonly u: readonly Shape[] }>;
type ObjectMember = Extract<Member, { readonly o: readonly Field[] } | { readonly r: Shape }>;

/** Union members in a fixed order, so equal inputs always give equal output. */
const ORDER: readonly Kind[] = ['object', 'array', 'string', 'number', 'boolean', 'null'];
/**
 * An object seen this many times with this many distinct keys, none of them in every one, is a
 * map keyed by data (user ids, file names), not a record type.
 */
const MAP_MIN_SEEN = 3;
const MAP_MIN_KEYS = 6;

export function mergeShapes(a: Shape, b: Shape): Shape {
  if (a === 'unknown' || b === 'unknown') return 'unknown';
  if (a === b) return a;
  // The common case, two values of one kind: no union to build.
  if (!isUnion(a) && !isUnion(b) && kindOf(a) === kindOf(b)) return mergeSameKind(a as Member, b as Member);
  const byKind = new Map<Kind, Member>();
  for (const member of [...membersOf(a), ...membersOf(b)]) {
    const kind = kindOf(member);
    const had = byKind.get(kind);
    byKind.set(kind, had === undefined ? member : mergeSameKind(had, member));
  }
  if (byKind.size > MAX_UNION) return 'unknown';
  const merged = ORDER.flatMap((kind) => {
    const member = byKind.get(kind);
    return member === undefined ? [] : [member];
  });
  return merged.length === 1 ? merged[0]! : { u: merged };
}

/** Every field's shape merged: what the values of a map hold (`unknown` for no values at all). */
export function valuesShape(shapes: Iterable<Shape>): Shape {
  let merged: Shape | undefined;
  for (const shape of shapes) {
    merged = merged === undefined ? shape : mergeShapes(merged, shape);
    if (merged === 'unknown') break;
  }
  return merged ?? 'unknown';
}

function isUnion(shape: Shape): shape is { readonly u: readonly Shape[] } {
  return typeof shape === 'object' && 'u' in shape;
}

function membersOf(shape: Exclude<Shape, 'unknown'>): readonly Member[] {
  return typeof shape === 'object' && 'u' in shape ? (shape.u as readonly Member[]) : [shape as Member];
}

function mergeSameKind(x: Member, y: Member): Member {
  if (typeof x === 'string' || typeof y === 'string') return x;
  if ('a' in x && 'a' in y) return { a: x.a === null ? y.a : y.a === null ? x.a : mergeShapes(x.a, y.a) };
  return mergeObjects(x as ObjectMember, y as ObjectMember);
}

function mergeObjects(x: ObjectMember, y: ObjectMember): ObjectMember {
  if ('r' in x || 'r' in y) return { r: valuesShape([...valuesOf(x), ...valuesOf(y)]) };
  const fields = new Map<string, [number, Shape]>();
  for (const [key, count, shape] of [...x.o, ...y.o]) {
    const had = fields.get(key);
    fields.set(key, had === undefined ? [count, shape] : [had[0] + count, mergeShapes(had[1], shape)]);
  }
  const n = x.n + y.n;
  const keysVary = n >= MAP_MIN_SEEN && fields.size >= MAP_MIN_KEYS && [...fields.values()].every(([count]) => count < n);
  if (fields.size > MAX_KEYS || keysVary) return { r: valuesShape([...fields.values()].map(([, shape]) => shape)) };
  return { o: [...fields].map(([key, [count, shape]]): Field => [key, count, shape]), n };
}

function valuesOf(shape: ObjectMember): Shape[] {
  return 'r' in shape ? [shape.r] : shape.o.map(([, , inner]) => inner);
}
