/**
 * A tool schema is untrusted input. Before json-schema-to-typescript sees one, it is measured
 * (bytes, depth, size once `$ref`s are expanded) and rebuilt from the keywords that shape a type,
 * so that nothing reaches the compiler that could inject code (`tsType`), read files or the
 * network (external `$ref`), or trip its validator (which logs to the console).
 */

import { Buffer } from 'node:buffer';

export interface SchemaLimits {
  readonly maxSchemaBytes: number;
  readonly maxSchemaDepth: number;
}

export type SanitizeOutcome =
  | { readonly ok: true; readonly schema: Record<string, unknown> | undefined; readonly notes: readonly string[] }
  | { readonly ok: false; readonly reason: string };

/** Nodes the schema may grow to when every internal `$ref` is inlined (guards `$ref` bombs). */
const MAX_EXPANDED_NODES = 200_000;

const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf'] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * Checks the limits and rebuilds `schema` for the compiler. `schema: undefined` in the outcome
 * means "no constraints": the caller types it as an open record.
 */
export function sanitizeSchema(input: unknown, limits: SchemaLimits): SanitizeOutcome {
  if (input === undefined || input === null) return { ok: true, schema: undefined, notes: [] };
  if (!isObject(input)) return { ok: false, reason: 'the schema is not a JSON object' };
  if (depthExceeds(input, limits.maxSchemaDepth)) {
    return { ok: false, reason: `the schema nests deeper than the limit of ${limits.maxSchemaDepth}` };
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(input);
  } catch {
    return { ok: false, reason: 'the schema is not serializable JSON' };
  }
  if (json === undefined) return { ok: false, reason: 'the schema is not serializable JSON' };
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > limits.maxSchemaBytes) {
    return { ok: false, reason: `the schema is ${bytes} bytes, over the limit of ${limits.maxSchemaBytes}` };
  }
  // A fresh parse gives plain JSON: no getters, no shared nodes, no prototypes to trip over.
  const raw = JSON.parse(json) as Json;

  const notes: string[] = [];
  const rewriteRef = isJsonObject(raw) ? mergeRootDefinitions(raw) : (ref: string) => ref;
  const schema = rebuild(raw, notes, rewriteRef, true);
  if (schema === undefined || isUnconstrained(schema)) return { ok: true, schema: undefined, notes };
  if (expandedSize(schema) > MAX_EXPANDED_NODES) {
    return { ok: false, reason: `the schema expands past ${MAX_EXPANDED_NODES} nodes once its $refs are inlined` };
  }
  return { ok: true, schema, notes };
}

function rebuild(node: Json, notes: string[], rewriteRef: (ref: string) => string, isRoot = false): JsonObject | undefined {
  if (node === true) return {};
  if (!isJsonObject(node)) return undefined;
  const out: JsonObject = {};

  const ref = node['$ref'];
  if (typeof ref === 'string') {
    if (!ref.startsWith('#')) {
      // Never fetched or read: an external schema becomes `unknown`.
      notes.push(`external $ref ${JSON.stringify(ref.slice(0, 200))} not followed`);
      return describe(out, node);
    }
    // The compiler names the root after a `$ref`'d root's title; as an allOf it stays `rootName`.
    if (isRoot && ref !== '#') out['allOf'] = [{ $ref: rewriteRef(ref) }];
    else if (!isRoot) out['$ref'] = rewriteRef(ref);
  }

  const type = node['type'];
  if (typeof type === 'string' && TYPE_NAMES.has(type)) out['type'] = type;
  else if (Array.isArray(type)) {
    const names = type.filter((t): t is string => typeof t === 'string' && TYPE_NAMES.has(t));
    if (names.length > 0) out['type'] = [...new Set(names)];
  }

  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (!isJsonObject(map)) continue;
    const rebuilt: JsonObject = {};
    for (const [name, value] of Object.entries(map)) {
      const child = rebuild(value, notes, rewriteRef);
      // Property names are untrusted: `__proto__` must become a property, not a prototype.
      if (child !== undefined) Object.defineProperty(rebuilt, name, { value: child, enumerable: true, writable: true, configurable: true });
    }
    out[key] = rebuilt;
  }
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    const members = list.map((member) => rebuild(member, notes, rewriteRef)).filter((m): m is JsonObject => m !== undefined);
    if (members.length > 0) out[key] = [...((out[key] as Json[] | undefined) ?? []), ...members];
  }

  // A required property with a default may be left out (zod 4 lists defaulted fields in `required`).
  const required = node['required'];
  const declared = isJsonObject(node['properties']) ? node['properties'] : {};
  const defaulted = (name: string): boolean => Object.hasOwn(declared, name) && isJsonObject(declared[name]) && Object.hasOwn(declared[name], 'default');
  if (Array.isArray(required)) out['required'] = [...new Set(required.filter((r): r is string => typeof r === 'string' && !defaulted(r)))];

  for (const key of ['additionalProperties', 'additionalItems'] as const) {
    const value = node[key];
    if (typeof value === 'boolean') out[key] = value;
    else {
      const child = rebuild(value ?? null, notes, rewriteRef);
      if (child !== undefined) out[key] = child;
    }
  }

  // 2020-12 tuples (`prefixItems` + `items` for the rest) become draft-07 ones for the compiler.
  const prefixItems = node['prefixItems'];
  const items = node['items'];
  if (Array.isArray(prefixItems)) {
    out['items'] = prefixItems.map((item) => rebuild(item, notes, rewriteRef) ?? {});
    if (items === false) out['additionalItems'] = false;
    else if (items !== undefined) out['additionalItems'] = rebuild(items, notes, rewriteRef) ?? {};
  } else if (Array.isArray(items)) {
    out['items'] = items.map((item) => rebuild(item, notes, rewriteRef) ?? {});
  } else if (items !== undefined) {
    const child = rebuild(items, notes, rewriteRef);
    if (child !== undefined) out['items'] = child;
  }

  if (Array.isArray(node['enum']) && node['enum'].length > 0) out['enum'] = node['enum'];
  if ('const' in node) out['const'] = node['const']!;
  if (node['nullable'] === true) out['nullable'] = true;
  if (node['deprecated'] === true) out['deprecated'] = true;

  // Anchors (`$id: "#name"`, `$anchor`) stay, for `$ref: "#name"`; other ids could rebase refs.
  const id = node['$id'];
  const anchor = node['$anchor'];
  if (typeof id === 'string' && /^#[A-Za-z][\w.-]*$/.test(id)) out['$id'] = id;
  else if (typeof anchor === 'string' && /^[A-Za-z][\w.-]*$/.test(anchor)) out['$id'] = `#${anchor}`;

  const title = node['title'];
  if (!isRoot && typeof title === 'string' && title.trim() !== '') out['title'] = title.slice(0, 100);

  // A free-form object: the compiler's default (no extra properties) would make it `{}`.
  const isObjectSchema = out['type'] === 'object' || (Array.isArray(out['type']) && out['type'].includes('object'));
  const hasProperties = isJsonObject(out['properties']) && Object.keys(out['properties']).length > 0;
  if (isObjectSchema && !hasProperties && !('patternProperties' in out) && !('additionalProperties' in out)) {
    out['additionalProperties'] = true;
  }
  return describe(out, node);
}

/**
 * The compiler refuses a schema with both `definitions` and `$defs` at the root: move the former
 * into the latter (renaming on a clash) and return how to rewrite a `$ref` to match.
 */
function mergeRootDefinitions(root: JsonObject): (ref: string) => string {
  const definitions = root['definitions'];
  const defs = root['$defs'];
  if (!isJsonObject(definitions) || !isJsonObject(defs)) return (ref) => ref;
  const renamed = new Map<string, string>();
  for (const [key, value] of Object.entries(definitions)) {
    let target = key;
    for (let n = 2; Object.hasOwn(defs, target); n++) target = `${key}_${n}`;
    Object.defineProperty(defs, target, { value, enumerable: true, writable: true, configurable: true });
    renamed.set(key, target);
  }
  delete root['definitions'];
  return (ref) => {
    const match = /^#\/definitions\/([^/]*)(.*)$/.exec(ref);
    if (match === null) return ref;
    const target = renamed.get(decodeSegment(match[1]!));
    return target === undefined ? ref : `#/$defs/${encodeSegment(target)}${match[2]!}`;
  };
}

/** Carries `description` (and `default`, as a JSDoc tag) onto the rebuilt node. */
function describe(out: JsonObject, node: JsonObject): JsonObject {
  const parts: string[] = [];
  const description = node['description'];
  if (typeof description === 'string' && description.trim() !== '') parts.push(description);
  if ('default' in node) {
    const text = JSON.stringify(node['default']);
    if (text !== undefined) parts.push(`@default ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
  }
  if (parts.length > 0) out['description'] = parts.join('\n').replace(/\*\//g, '*\\/');
  return out;
}

/** True for a root that constrains nothing a type could show: an open object at most. */
function isUnconstrained(schema: JsonObject): boolean {
  if (schema['type'] !== undefined && schema['type'] !== 'object') return false;
  return Object.entries(schema).every(
    ([key, value]) =>
      key === 'type' ||
      key === 'description' ||
      key === '$defs' ||
      key === 'definitions' ||
      (key === 'additionalProperties' && value === true) ||
      (key === 'properties' && isJsonObject(value) && Object.keys(value).length === 0),
  );
}

function depthExceeds(node: unknown, maxDepth: number, depth = 1): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (depth > maxDepth) return true;
  const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
  return children.some((child) => depthExceeds(child, maxDepth, depth + 1));
}

/** Node count with every internal `$ref` inlined once per use; cycles count once. */
function expandedSize(root: JsonObject): number {
  const anchors = new Map<string, Json>();
  collectAnchors(root, anchors);
  const memo = new Map<Json, number>();
  const visiting = new Set<Json>();
  const size = (node: Json): number => {
    if (node === null || typeof node !== 'object') return 1;
    const known = memo.get(node);
    if (known !== undefined) return known;
    if (visiting.has(node)) return 1;
    visiting.add(node);
    let total = 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      total += size(child);
      if (total > MAX_EXPANDED_NODES) break;
    }
    if (!Array.isArray(node) && typeof node['$ref'] === 'string') {
      const target = resolvePointer(root, node['$ref'], anchors);
      if (target !== undefined) total += size(target);
    }
    visiting.delete(node);
    memo.set(node, total);
    return total;
  };
  return size(root);
}

function collectAnchors(node: Json, anchors: Map<string, Json>): void {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node) && typeof node['$id'] === 'string') anchors.set(node['$id'], node);
  for (const child of Array.isArray(node) ? node : Object.values(node)) collectAnchors(child, anchors);
}

function resolvePointer(root: Json, ref: string, anchors: Map<string, Json>): Json | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return anchors.get(ref);
  let node: Json | undefined = root;
  for (const segment of ref.slice(2).split('/')) {
    const key = decodeSegment(segment);
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, Json>)[key];
  }
  return node;
}

function decodeSegment(segment: string): string {
  const unescaped = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  try {
    return decodeURIComponent(unescaped);
  } catch {
    return unescaped;
  }
}

function encodeSegment(key: string): string {
  return encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
