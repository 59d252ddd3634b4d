import { isJsonObject } from '../../common/json-object.js';
import { UsageError } from '../usage.js';
import { didYouMean } from './suggest.js';

type Schema = Record<string, unknown>;

const JSON_HINT = `e.g. '{"query":"auth"}' or query=auth`;

/** True when the words are key=value pairs (so the tool's schema is needed to type them). */
export function isKeyValueForm(words: readonly string[]): boolean {
  return words.length > 0 && !words[0]!.trimStart().startsWith('{');
}

/** One JSON object argument. */
export function parseJsonArguments(words: readonly string[]): Record<string, unknown> {
  if (words.length === 0) return {};
  if (words.length > 1) throw new UsageError(`give the arguments as one JSON object or as key=value pairs, not both (${JSON_HINT})`, 'call');
  let value: unknown;
  try {
    value = JSON.parse(words[0]!);
  } catch (error) {
    throw new UsageError(`arguments must be JSON, ${JSON_HINT}: ${(error as Error).message}`, 'call');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`arguments must be a JSON object, ${JSON_HINT}`, 'call');
  }
  return value as Record<string, unknown>;
}

/** `key=value …` typed by the tool's input schema: numbers, booleans, JSON for objects and arrays. */
export function parseKeyValueArguments(words: readonly string[], inputSchema: Schema | undefined, tool: string): Record<string, unknown> {
  const properties = (isJsonObject(inputSchema?.['properties']) ? inputSchema['properties'] : {}) as Record<string, unknown>;
  const closed = inputSchema?.['additionalProperties'] === false;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new UsageError(`"${word}" is not key=value; give the arguments as key=value pairs or one JSON object (${JSON_HINT})`, 'call');
    const key = word.slice(0, eq);
    const text = word.slice(eq + 1);
    if (Object.hasOwn(out, key)) throw new UsageError(`argument "${key}" is given twice`, 'call');
    const known = Object.hasOwn(properties, key);
    const names = Object.keys(properties);
    // An unknown key is refused when the schema is closed, or when it looks like a typo of a known one.
    if (!known && (closed || didYouMean(key, names) !== '')) {
      throw new UsageError(`${tool} has no argument "${key}".${didYouMean(key, names)} Its arguments: ${names.join(', ') || '(none)'}`, 'call');
    }
    out[key] = typed(key, text, known ? (properties[key] as Schema) : undefined);
  }
  return { ...out };
}

function typed(key: string, text: string, schema: Schema | undefined): unknown {
  const types = schemaTypes(schema);
  if (types.size === 0) return guess(text);
  if (types.has('string') && !looksTyped(text, types)) return text;
  if ((types.has('number') || types.has('integer')) && text.trim() !== '' && Number.isFinite(Number(text))) {
    const n = Number(text);
    if (types.has('integer') && !types.has('number') && !Number.isInteger(n)) throw new UsageError(`${key} needs a whole number, got "${text}"`, 'call');
    return n;
  }
  if (types.has('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.has('null') && text === 'null') return null;
  if (types.has('object') || types.has('array')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      if (!types.has('string'))
        throw new UsageError(`${key} needs JSON (${[...types].join(' or ')}), e.g. ${key}='${types.has('array') ? '["a","b"]' : '{"a":1}'}'`, 'call');
    }
  }
  if (types.has('string')) return text;
  const kinds = [...types].map((t) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`));
  throw new UsageError(`${key} needs ${kinds.join(' or ')}, got "${text}"`, 'call');
}

/** A string-typed property keeps the text unless the schema also allows the typed reading. */
function looksTyped(text: string, types: ReadonlySet<string>): boolean {
  const t = jsonType(guess(text));
  return types.size > 1 && t !== 'string' && (types.has(t) || (t === 'number' && types.has('integer')));
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' ? 'number' : typeof value;
}

function guess(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function schemaTypes(schema: Schema | undefined): Set<string> {
  const types = new Set<string>();
  if (!schema) return types;
  const type = schema['type'];
  if (typeof type === 'string') types.add(type);
  else if (Array.isArray(type)) for (const t of type) if (typeof t === 'string') types.add(t);
  for (const key of ['anyOf', 'oneOf']) {
    const list = schema[key];
    if (Array.isArray(list)) for (const sub of list) for (const t of schemaTypes(isJsonObject(sub) ? (sub as Schema) : undefined)) types.add(t);
  }
  if (types.size === 0 && Array.isArray(schema['enum'])) for (const v of schema['enum'] as unknown[]) types.add(jsonType(v));
  if (types.size === 0 && 'const' in schema) types.add(jsonType(schema['const']));
  return types;
}
