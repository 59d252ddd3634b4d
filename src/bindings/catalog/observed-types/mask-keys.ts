/**
 * Observed shapes keep a result's keys: a key that holds a secret (any rendering) must reach
 * neither a model nor the file beside the catalog. An object with such a key becomes a map, as an
 * object keyed by data does (infer.ts), so the key itself is never kept.
 */
import { valuesShape } from './merge.js';
import type { Field, Shape } from './shape.js';

/** `shape` with every object whose keys `mask` changes turned into a map; the same object when none does. */
export function maskKeys(shape: Shape, mask: (key: string) => string): Shape {
  if (typeof shape === 'string') return shape;
  if ('a' in shape) {
    if (shape.a === null) return shape;
    const element = maskKeys(shape.a, mask);
    return element === shape.a ? shape : { a: element };
  }
  if ('r' in shape) {
    const values = maskKeys(shape.r, mask);
    return values === shape.r ? shape : { r: values };
  }
  if ('u' in shape) {
    const members = shape.u.map((member) => maskKeys(member, mask));
    return members.every((member, i) => member === shape.u[i]) ? shape : { u: members };
  }
  const fields = shape.o.map(([key, count, inner]): Field => {
    const masked = maskKeys(inner, mask);
    return masked === inner ? [key, count, inner] : [key, count, masked];
  });
  if (shape.o.some(([key]) => mask(key) !== key)) return { r: valuesShape(fields.map(([, , inner]) => inner)) };
  return fields.every((field, i) => field[2] === shape.o[i]![2]) ? shape : { o: fields, n: shape.n };
}
