/** An observed shape as TypeScript text: `{ entities: { name: string; tags?: string[] }[] }`. */
import { stringLiteral } from '../../typings/ts-text.js';
import type { Shape } from './shape.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function shapeText(shape: Shape): string {
  if (typeof shape === 'string') return shape;
  if ('a' in shape) {
    if (shape.a === null) return 'unknown[]';
    const element = shapeText(shape.a);
    return typeof shape.a === 'object' && 'u' in shape.a ? `(${element})[]` : `${element}[]`;
  }
  // `Record` is not used: a generated namespace may shadow it.
  if ('r' in shape) return `{ [key: string]: ${shapeText(shape.r)} }`;
  if ('u' in shape) return shape.u.map(shapeText).join(' | ');
  if (shape.o.length === 0) return '{}';
  const members = shape.o.map(([key, count, inner]) => `${IDENTIFIER.test(key) ? key : stringLiteral(key)}${count < shape.n ? '?' : ''}: ${shapeText(inner)}`);
  return `{ ${members.join('; ')} }`;
}
