/**
 * What the call check (operations/arguments) is certain to refuse in a call's literal arguments.
 * The same validator runs, on the value the literal parts build (literal-value.ts), with every
 * error reported; an error is kept only when the literal parts alone decide it:
 * - a wrong type where the value is written as a literal;
 * - a missing property where the object's keys are all written out (no spread, no computed key);
 * - an unknown property written as a literal, with no spread after it that could take it away;
 * - anything else (enum, const, bounds, a failed anyOf…) only where nothing at or below is unknown;
 * - nothing under a conditional part of the schema (anyOf, oneOf, not, if, dependentSchemas…) that
 *   an unknown value may decide, except the null wrapper of an optional property (loosen-schema.ts),
 *   whose branch only depends on the literal being null.
 */
import type { ErrorObject } from 'ajv';
import type { Node } from 'typescript';
import { argumentProblem } from '../operations/arguments/argument-message.js';
import type { LiteralSite, LiteralValue } from './literal-value.js';

export type ArgumentCode = 'CHECK_ARGUMENT_UNKNOWN' | 'CHECK_ARGUMENT_MISSING' | 'CHECK_ARGUMENT_TYPE' | 'CHECK_ARGUMENT_INVALID';

export interface ArgumentProblem {
  readonly node: Node;
  readonly code: ArgumentCode;
  /** `arguments.b: expected number, got "40" (string)`: the call check's own words. */
  readonly text: string;
}

/** Keywords whose outcome picks which other parts of the schema apply. */
const CONDITIONAL = new Set([
  'anyOf',
  'oneOf',
  'not',
  'if',
  'contains',
  'dependencies',
  'dependentSchemas',
  'dependentRequired',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
]);

const under = (path: string, ancestor: string): boolean => ancestor === '' || path === ancestor || path.startsWith(`${ancestor}/`);

/** The certain problems among `errors` (Ajv's, every error) for the literal `literal`. */
export function certainProblems(errors: readonly ErrorObject[], literal: LiteralValue): ArgumentProblem[] {
  const site = (error: ErrorObject): LiteralSite | undefined => literal.sites.get(error.instancePath);
  const uncertain: string[] = [];
  for (const error of errors) {
    if (!CONDITIONAL.has(error.keyword)) continue;
    const at = site(error);
    const decided = at?.whole === true || (error.keyword === 'if' && isNullWrapper(error.parentSchema) && at !== undefined && !at.unknown);
    if (!decided) uncertain.push(error.instancePath);
  }
  const problems: ArgumentProblem[] = [];
  const seen = new Set<string>();
  const consumed = new Set<number>();
  const add = (node: Node, code: ArgumentCode, group: readonly ErrorObject[]): void => {
    const text = argumentProblem(group, literal.value);
    if (seen.has(text)) return;
    seen.add(text);
    problems.push({ node, code, text });
  };
  for (let i = errors.length - 1; i >= 0; i--) {
    const error = errors[i]!;
    if (consumed.has(i) || uncertain.some((path) => under(error.instancePath, path))) continue;
    const at = site(error);
    if (at === undefined) continue;
    switch (error.keyword) {
      case 'type':
        if (!at.unknown) add(at.node, 'CHECK_ARGUMENT_TYPE', [error]);
        break;
      case 'required':
        if (at.closed) add(at.node, 'CHECK_ARGUMENT_MISSING', [error]);
        break;
      case 'additionalProperties': {
        const key = at.keys?.get(String((error.params as { additionalProperty?: unknown }).additionalProperty));
        if (key?.final === true && key.literal) add(key.nameNode, 'CHECK_ARGUMENT_UNKNOWN', [error]);
        break;
      }
      case 'if':
        break;
      case 'anyOf':
      case 'oneOf': {
        // Its branches' errors come just before it, at or below its place: one problem for all.
        let start = i;
        while (start > 0 && under(errors[start - 1]!.instancePath, error.instancePath)) consumed.add(--start);
        if (at.whole) add(at.node, 'CHECK_ARGUMENT_INVALID', errors.slice(start, i + 1));
        break;
      }
      default:
        if (at.whole) add(at.node, 'CHECK_ARGUMENT_INVALID', [error]);
    }
  }
  return problems.reverse();
}

/** `{ if: { type: 'null' }, then: true, else: … }`: how loosen-schema.ts lets an optional property be null. */
function isNullWrapper(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { if: condition, then } = schema as { if?: unknown; then?: unknown };
  return then === true && typeof condition === 'object' && condition !== null && (condition as { type?: unknown }).type === 'null';
}
