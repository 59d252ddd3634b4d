/**
 * The schema a call's arguments are checked against: the tool's inputSchema, loosened where real
 * servers accept more than they declare, so that only what is certainly wrong is refused.
 * - A required property with a `default` is not missing (zod 4 lists defaulted fields in
 *   `required`: Playwright MCP's `browser_take_screenshot` `scale`).
 * - `null` for a property that is not required goes to the server, which decides (the conformance
 *   suite's `verbose: null`); so does `null` where the schema says `nullable: true` (OpenAPI).
 * - `oneOf` is read as `anyOf`: a value that fits two branches is not certainly wrong.
 * - `additionalProperties: false` refuses a name only where the schema that says it declares every
 *   name: beside `allOf`/`anyOf`/`oneOf`/`$ref`/`if`, or inside an `allOf` branch (or another branch
 *   whose parent declares properties), names may come from elsewhere.
 * Formats are not checked at all (see argument-check.ts). The tool's own schema is never changed:
 * this builds a copy, and rewrites the local `$ref`s whose targets moved.
 */

type Json = unknown;
type Schema = Record<string, Json>;

/** Schemas nested deeper than this are not loosened (nor checked): their calls go out unchecked. */
export const MAX_SCHEMA_DEPTH = 200;

const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'] as const;
const SINGLE_KEYWORDS = ['additionalProperties', 'items', 'additionalItems', 'contains', 'unevaluatedProperties', 'unevaluatedItems'] as const;
const BRANCH_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
/** Values that are data, not schemas: a `$ref` key in them is no reference. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords beside which `additionalProperties` cannot know every name of the object. */
const COMPOSING = ['allOf', 'anyOf', 'oneOf', '$ref', '$dynamicRef', '$recursiveRef', 'if', 'then', 'else', 'dependentSchemas', 'dependencies'] as const;

export class SchemaTooDeepError extends Error {}

const isSchema = (value: Json): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A map built from entries: a name such as `__proto__` stays a name. */
const mapOf = (entries: Iterable<readonly [string, Json]>): Schema => Object.fromEntries(entries) as Schema;

/** The nodes that moved, by path: a trie of segments (a ref is rewritten in one pass down it). */
interface Moved {
  readonly next: Map<string, Moved>;
  /** The node is wrapped: its content is now under `else`. */
  wrapped?: true;
  /** Its `oneOf` became `anyOf`. */
  renamed?: true;
}

interface Walk {
  readonly root: Schema;
  readonly moved: Moved;
  changed: boolean;
}

function mark(walk: Walk, path: readonly string[], what: 'wrapped' | 'renamed'): void {
  let node = walk.moved;
  for (const segment of path) {
    let next = node.next.get(segment);
    if (next === undefined) node.next.set(segment, (next = { next: new Map() }));
    node = next;
  }
  node[what] = true;
  walk.changed = true;
}

/** The loosened copy of `schema` (an object schema); throws SchemaTooDeepError past MAX_SCHEMA_DEPTH. */
export function loosenSchema(schema: Schema): Schema {
  const walk: Walk = { root: schema, moved: { next: new Map() }, changed: false };
  const loosened = visit(schema, [], walk, false, false, 0) as Schema;
  return walk.changed ? (rewriteRefs(loosened, walk, 0) as Schema) : loosened;
}

/** `nullOk`: null passes here (an optional property); `openBranch`: names may be declared beside this schema. */
function visit(node: Json, path: readonly string[], walk: Walk, nullOk: boolean, openBranch: boolean, depth: number): Json {
  if (depth > MAX_SCHEMA_DEPTH) throw new SchemaTooDeepError(`nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  if (!isSchema(node)) return node;
  const out: Schema = { ...node };
  const child = (value: Json, ...segments: string[]): Json => visit(value, [...path, ...segments], walk, false, false, depth + 1);

  const required = new Set(Array.isArray(node['required']) ? node['required'].filter((n): n is string => typeof n === 'string') : []);
  const properties = isSchema(node['properties']) ? node['properties'] : undefined;
  if (properties && Array.isArray(node['required'])) {
    for (const name of required) if (Object.hasOwn(properties, name) && hasDefault(properties[name], walk.root)) required.delete(name);
    out['required'] = (node['required'] as Json[]).filter((name) => typeof name !== 'string' || required.has(name));
  }
  for (const key of MAP_KEYWORDS) {
    const map = node[key];
    if (!isSchema(map)) continue;
    // Optional properties, and names matched by a pattern, may be null; definitions are visited as schemas.
    const optional = (name: string): boolean => (key === 'properties' && !required.has(name)) || key === 'patternProperties';
    out[key] = mapOf(Object.entries(map).map(([name, value]) => [name, visit(value, [...path, key, name], walk, optional(name), false, depth + 1)]));
  }
  for (const key of SINGLE_KEYWORDS) {
    if (!Object.hasOwn(node, key)) continue;
    out[key] = Array.isArray(node[key])
      ? (node[key] as Json[]).map((item, i) => child(item, key, String(i)))
      : visit(node[key], [...path, key], walk, key === 'additionalProperties', false, depth + 1);
  }
  if (Array.isArray(node['prefixItems'])) out['prefixItems'] = node['prefixItems'].map((item, i) => child(item, 'prefixItems', String(i)));

  // Branches apply to the same object as their parent: beside the names it (or an allOf sibling) declares.
  const declares = properties !== undefined || isSchema(node['patternProperties']);
  for (const key of BRANCH_LISTS) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    const open = key === 'allOf' || declares || openBranch;
    out[key] = branches.map((branch, i) => visit(branch, [...path, key, String(i)], walk, false, open, depth + 1));
  }
  for (const key of ['then', 'else'] as const)
    if (Object.hasOwn(node, key)) out[key] = visit(node[key], [...path, key], walk, false, declares || openBranch, depth + 1);
  if (Array.isArray(out['oneOf']) && !Object.hasOwn(out, 'anyOf')) {
    out['anyOf'] = out['oneOf'];
    delete out['oneOf'];
    mark(walk, path, 'renamed');
  }
  if (out['additionalProperties'] === false && (openBranch || COMPOSING.some((key) => Object.hasOwn(node, key)))) out['additionalProperties'] = true;

  if (node['nullable'] === true) {
    delete out['nullable'];
    nullOk = true;
  }
  if (!nullOk || acceptsNull(out)) return out;
  mark(walk, path, 'wrapped');
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, not a thenable
  return { if: { type: 'null' }, then: true, else: out };
}

/** True when the schema surely takes null already (no wrapper needed). */
function acceptsNull(schema: Schema): boolean {
  const type = schema['type'];
  if (!(type === undefined || type === 'null' || (Array.isArray(type) && type.includes('null')))) return false;
  if (Object.hasOwn(schema, 'enum') && !(Array.isArray(schema['enum']) && schema['enum'].includes(null))) return false;
  if (Object.hasOwn(schema, 'const') && schema['const'] !== null) return false;
  return !['$ref', '$dynamicRef', '$recursiveRef', 'allOf', 'anyOf', 'oneOf', 'not', 'if'].some((key) => Object.hasOwn(schema, key));
}

/** The property's schema, or the local `$ref` target it names, carries a `default`. */
function hasDefault(property: Json, root: Schema): boolean {
  let node = property;
  for (let hops = 0; hops < 8 && isSchema(node); hops++) {
    if (Object.hasOwn(node, 'default')) return true;
    const ref = node['$ref'];
    if (typeof ref !== 'string' || !ref.startsWith('#')) return false;
    node = resolvePointer(root, decodePointer(ref));
  }
  return false;
}

function decodePointer(ref: string): string[] {
  const fragment = ref.slice(1);
  if (fragment === '') return [];
  let decoded = fragment;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    // Not percent-encoded after all: read as written.
  }
  return decoded
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolvePointer(root: Json, segments: readonly string[]): Json {
  let node = root;
  for (const segment of segments) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isSchema(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

/** Local `$ref`s (`#/…`) that pass through a wrapped node (now `…/else/…`) or a renamed `oneOf`. */
function rewriteRefs(node: Json, walk: Walk, depth: number): Json {
  // Maps and lists sit between schema levels: a loosened schema is at most this deep.
  if (depth > MAX_SCHEMA_DEPTH * 3 + 8) return node;
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, walk, depth + 1));
  if (!isSchema(node)) return node;
  const out = mapOf(Object.entries(node).map(([key, value]) => [key, DATA_KEYWORDS.has(key) ? value : rewriteRefs(value, walk, depth + 1)]));
  const ref = node['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/')) out['$ref'] = movedRef(decodePointer(ref), walk) ?? ref;
  return out;
}

function movedRef(segments: readonly string[], walk: Walk): string | undefined {
  const out: string[] = [];
  let moved = false;
  let node: Moved | undefined = walk.moved;
  for (const segment of segments) {
    if (node?.wrapped) {
      out.push('else');
      moved = true;
    }
    if (segment === 'oneOf' && node?.renamed) {
      out.push('anyOf');
      moved = true;
    } else out.push(segment);
    node = node?.next.get(segment);
  }
  if (!moved) return undefined;
  return `#/${out.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
}
