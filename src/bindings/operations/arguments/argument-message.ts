/**
 * Ajv's first error as one line a model can act on: where (`arguments.items[2].name`), what the
 * schema expects, and what was given, shortened (`"40" (string)`).
 */
import type { ErrorObject } from 'ajv';
import { nameList } from '../../../common/closest-names.js';

const MAX_STRING_SHOWN = 40;
const MAX_LISTED = 8;

/** `arguments.b: expected number, got "40" (string)`. */
export function argumentProblem(all: readonly ErrorObject[], args: unknown): string {
  // A property that may be null is checked under `if: {type: "null"}` (loosen-schema.ts): its own
  // error, not the wrapper's, says what is wrong.
  let end = all.length;
  while (end > 0 && all[end - 1]!.keyword === 'if') end--;
  const errors = all.slice(0, end);
  const last = errors[errors.length - 1];
  if (last === undefined) return 'arguments: do not match the inputSchema';
  let error = last;
  if (last.keyword === 'anyOf' || last.keyword === 'oneOf') {
    const branches = errors.slice(0, -1);
    // A branch whose type fits the value but fails something else says most; else list the types.
    const closer = branches.find((e) => e.keyword !== 'type' && e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
    if (closer !== undefined) error = closer;
  }
  const { path, value } = locate(args, error.instancePath);
  return `${path}${describe(error, value)}`;
}

function describe(error: ErrorObject, value: unknown): string {
  const params = error.params as Record<string, unknown>;
  const got = `got ${shown(value)}`;
  switch (error.keyword) {
    case 'type':
      return `: expected ${String(params['type']).split(',').join(' | ')}, ${got}`;
    case 'required': {
      const name = String(params['missingProperty']);
      const expected = typeOfProperty(error.parentSchema, name);
      return `${member(name)}: missing (required${expected ? `, expected ${expected}` : ''})`;
    }
    case 'additionalProperties': {
      const name = String(params['additionalProperty']);
      const allowed = Object.keys(propertiesOf(error.parentSchema) ?? {});
      return `${member(name)}: not a parameter of this tool${allowed.length > 0 ? ` (it takes: ${nameList(name, allowed)})` : ''}`;
    }
    case 'enum':
      return `: expected one of ${listed(params['allowedValues'])}, ${got}`;
    case 'const':
      return `: expected ${shortJson(params['allowedValue'])}, ${got}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `: expected a number ${String(params['comparison'])} ${String(params['limit'])}, ${got}`;
    case 'multipleOf':
      return `: expected a multiple of ${String(params['multipleOf'])}, ${got}`;
    case 'minLength':
      return `: expected a string of at least ${String(params['limit'])} characters, ${got}`;
    case 'maxLength':
      return `: expected a string of at most ${String(params['limit'])} characters, got ${lengthOf(value)}`;
    case 'pattern':
      return `: expected a string matching /${clip(String(params['pattern']))}/, ${got}`;
    case 'minItems':
      return `: expected at least ${String(params['limit'])} items, got ${lengthOf(value)}`;
    case 'maxItems':
      return `: expected at most ${String(params['limit'])} items, got ${lengthOf(value)}`;
    case 'uniqueItems':
      return `: expected unique items, items ${String(params['j'])} and ${String(params['i'])} are equal`;
    case 'anyOf':
    case 'oneOf':
      return `: expected ${alternatives(error.schema) ?? `a value matching one of the ${error.keyword} schemas`}, ${got}`;
    default:
      return `: ${error.message ?? `fails "${error.keyword}"`}, ${got}`;
  }
}

/** `a value of type number | string`, from the branches' own `type`s when each has one. */
function alternatives(branches: unknown): string | undefined {
  if (!Array.isArray(branches)) return undefined;
  const types = branches.map((b) => (typeof b === 'object' && b !== null ? (b as { type?: unknown }).type : undefined));
  if (!types.every((t) => typeof t === 'string' || Array.isArray(t))) return undefined;
  return [...new Set(types.flat().map(String))].join(' | ');
}

function propertiesOf(schema: unknown): Record<string, unknown> | undefined {
  const properties = typeof schema === 'object' && schema !== null ? (schema as { properties?: unknown }).properties : undefined;
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : undefined;
}

function typeOfProperty(schema: unknown, name: string): string | undefined {
  const property = Object.hasOwn(propertiesOf(schema) ?? {}, name) ? propertiesOf(schema)![name] : undefined;
  if (typeof property !== 'object' || property === null) return undefined;
  // A property that may be null, as loosen-schema.ts wraps it.
  const { if: condition, else: otherwise } = property as { if?: unknown; else?: unknown };
  if (condition !== undefined && otherwise !== undefined) {
    const inner = typeOfProperty({ properties: { name: otherwise } }, 'name');
    return inner === undefined ? undefined : `${inner} | null`;
  }
  const type = (property as { type?: unknown }).type;
  if (typeof type === 'string') return type;
  return Array.isArray(type) ? type.map(String).join(' | ') : undefined;
}

/** The JSON pointer as `arguments.items[2].name`, and the value found there. */
function locate(args: unknown, pointer: string): { path: string; value: unknown } {
  let path = 'arguments';
  let value = args;
  if (pointer === '') return { path, value };
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) {
      path += `[${key}]`;
      value = value[Number(key)];
    } else {
      path += member(key);
      value = typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    }
  }
  return { path, value };
}

function member(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(clip(key))}]`;
}

/** `"40" (string)`, `40 (number)`, `null`, `an array of 3`, `an object`. */
function shown(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `${JSON.stringify(clip(value))} (string)`;
  return `${String(value)} (${typeof value})`;
}

function lengthOf(value: unknown): string {
  return Array.isArray(value) ? `${value.length}` : typeof value === 'string' ? `${value.length} characters` : shown(value);
}

function listed(values: unknown): string {
  if (!Array.isArray(values)) return shortJson(values);
  const shownValues = values.slice(0, MAX_LISTED).map(shortJson).join(', ');
  return values.length > MAX_LISTED ? `${shownValues} and ${values.length - MAX_LISTED} more` : shownValues;
}

function shortJson(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(clip(value)) : clip(JSON.stringify(value) ?? String(value));
}

function clip(text: string): string {
  return text.length <= MAX_STRING_SHOWN ? text : `${text.slice(0, MAX_STRING_SHOWN)}…`;
}
