/**
 * A script's object literal as the JSON value it is certain to become, where that is known: every
 * value that is not a literal (a variable, a call, a template with substitutions, `undefined`, a
 * spread array) becomes UNKNOWN, and each object remembers what could still change its keys (a
 * spread, a computed key, an accessor). The argument check then refuses only what the literal
 * parts alone make certain (argument-verdict.ts).
 */
import type { Node, ObjectLiteralExpression } from 'typescript';
import type { TypeScript } from './load-typescript.js';

/** Stands for a value the check does not know: it never causes a refusal. */
export const UNKNOWN: object = Object.freeze({ '\u0000berry-mcp-unknown': true });

/** Deeper literals are UNKNOWN: the check's own walk stays bounded. */
const MAX_DEPTH = 64;

export interface LiteralKey {
  /** The key as written (where an unknown or misplaced name is reported). */
  readonly nameNode: Node;
  /** Its value, as written. */
  readonly valueNode: Node;
  /** No spread, computed key or accessor follows it: nothing can take the key away again. */
  readonly final: boolean;
  /** Its value is a literal (an object literal counts, whatever it holds): it cannot be `undefined`. */
  readonly literal: boolean;
}

/** What is known about the value at one JSON pointer of the built value. */
export interface LiteralSite {
  readonly node: Node;
  /** UNKNOWN stands here. */
  readonly unknown: boolean;
  /** An object whose key set is exactly what is written (no spread, computed key or accessor). */
  readonly closed: boolean;
  /** Neither UNKNOWN nor an open object anywhere at or below. */
  readonly whole: boolean;
  /** An object literal's keys. */
  readonly keys?: ReadonlyMap<string, LiteralKey>;
}

export interface LiteralValue {
  readonly value: unknown;
  /** By JSON pointer (`''`, `/path`, `/items/0`), as Ajv's `instancePath`. */
  readonly sites: ReadonlyMap<string, LiteralSite>;
}

/** The value `expression` is certain to become, with what is known at each of its places. */
export function literalValue(ts: TypeScript, expression: Node): LiteralValue {
  const sites = new Map<string, LiteralSite>();
  const value = build(ts, expression, '', sites, 0);
  return { value, sites };
}

/** Parentheses, `as`, `satisfies`, `!` and `<T>` change nothing at run time. */
export function unwrap(ts: TypeScript, node: Node): Node {
  let current = node;
  while (
    ts.isParenthesizedExpression(current) ||
    ts.isAsExpression(current) ||
    ts.isSatisfiesExpression(current) ||
    ts.isNonNullExpression(current) ||
    ts.isTypeAssertionExpression(current)
  ) {
    current = current.expression;
  }
  return current;
}

/** A property name that is a plain string at run time (`a`, `'a'`, `1`, `['a']`), else undefined. */
export function staticKey(ts: TypeScript, name: Node): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  if (ts.isNumericLiteral(name)) return String(Number(name.text));
  if (ts.isComputedPropertyName(name)) {
    const inner = unwrap(ts, name.expression);
    if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return inner.text;
  }
  return undefined;
}

function build(ts: TypeScript, raw: Node, pointer: string, sites: Map<string, LiteralSite>, depth: number): unknown {
  const node = unwrap(ts, raw);
  const known = (value: unknown): unknown => {
    sites.set(pointer, { node, unknown: false, closed: false, whole: true });
    return value;
  };
  const unknown = (): unknown => {
    sites.set(pointer, { node, unknown: true, closed: false, whole: false });
    return UNKNOWN;
  };
  if (depth > MAX_DEPTH) return unknown();
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return known(node.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return known(true);
  if (node.kind === ts.SyntaxKind.FalseKeyword) return known(false);
  if (node.kind === ts.SyntaxKind.NullKeyword) return known(null);
  const number = numberOf(ts, node);
  if (number !== undefined) return known(number);
  if (ts.isArrayLiteralExpression(node)) {
    // A spread or a hole makes the array's length and places unknown.
    if (node.elements.some((e) => ts.isSpreadElement(e) || ts.isOmittedExpression(e))) return unknown();
    const items = node.elements.map((element, i) => build(ts, element, `${pointer}/${i}`, sites, depth + 1));
    const whole = node.elements.every((_, i) => sites.get(`${pointer}/${i}`)?.whole === true);
    sites.set(pointer, { node, unknown: false, closed: true, whole });
    return items;
  }
  if (ts.isObjectLiteralExpression(node)) return buildObject(ts, node, pointer, sites, depth);
  return unknown();
}

function buildObject(ts: TypeScript, node: ObjectLiteralExpression, pointer: string, sites: Map<string, LiteralSite>, depth: number): unknown {
  const out: Record<string, unknown> = {};
  const keys = new Map<string, LiteralKey>();
  let closed = true;
  for (const property of node.properties) {
    const key = property.name === undefined ? undefined : staticKey(ts, property.name);
    // `__proto__: x` sets the prototype, it makes no key; a spread, accessor or computed key may add or remove any.
    if (key === undefined || key === '__proto__' || !(ts.isPropertyAssignment(property) || ts.isShorthandPropertyAssignment(property))) {
      closed = false;
      for (const [name, entry] of keys) keys.set(name, { ...entry, final: false });
      continue;
    }
    const child = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const valueNode = ts.isPropertyAssignment(property) ? property.initializer : property.name;
    const value = ts.isPropertyAssignment(property) ? build(ts, property.initializer, child, sites, depth + 1) : shorthand(child, property.name, sites);
    out[key] = value;
    keys.set(key, { nameNode: property.name!, valueNode, final: true, literal: sites.get(child)?.unknown === false });
  }
  const whole = closed && [...keys.keys()].every((key) => sites.get(`${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)?.whole === true);
  sites.set(pointer, { node, unknown: false, closed, whole, keys });
  return out;
}

function shorthand(pointer: string, name: Node, sites: Map<string, LiteralSite>): unknown {
  sites.set(pointer, { node: name, unknown: true, closed: false, whole: false });
  return UNKNOWN;
}

/** `1`, `-2.5`, `+3`: a finite number (JSON has no Infinity); anything else undefined. */
function numberOf(ts: TypeScript, node: Node): number | undefined {
  let sign = 1;
  let inner = node;
  if (ts.isPrefixUnaryExpression(node) && (node.operator === ts.SyntaxKind.MinusToken || node.operator === ts.SyntaxKind.PlusToken)) {
    sign = node.operator === ts.SyntaxKind.MinusToken ? -1 : 1;
    inner = unwrap(ts, node.operand);
  }
  if (!ts.isNumericLiteral(inner)) return undefined;
  const value = sign * Number(inner.text);
  return Number.isFinite(value) ? value : undefined;
}
