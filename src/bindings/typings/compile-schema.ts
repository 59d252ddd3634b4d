/**
 * One JSON Schema to TypeScript declarations with json-schema-to-typescript. Never throws: a
 * schema it cannot take (over the limits, malformed, unsupported) becomes an open record with a
 * comment saying why.
 */
import type { Options } from 'json-schema-to-typescript';
import { sanitizeSchema, type SchemaLimits } from './sanitize-schema.js';
import { docComment, escapeLineSeparators, lineCommentText } from './ts-text.js';

export interface CompiledSchema {
  /** Declarations, one of them named `rootName`; no imports, no `declare`, ready for a namespace. */
  readonly code: string;
  /** Why the schema was not typed (it became an open record), when it was not. */
  readonly fallbackReason?: string;
  /** Parts of the schema that were typed loosely (an external `$ref` becomes `unknown`). */
  readonly notes: readonly string[];
}

/** An object with any properties. `Record` is not used: a generated namespace may shadow it. */
export const OPEN_RECORD = '{ [key: string]: unknown }';

const COMPILE_OPTIONS: Partial<Options> = {
  bannerComment: '',
  // Prettier formatting is slow and not needed: the output is indented by ts-text.
  format: false,
  // Undeclared properties are typos more often than not; `additionalProperties: true` (or a
  // schema) in the tool's schema still gives an index signature.
  additionalProperties: false,
  strictIndexSignatures: true,
  // `maxItems: 1000` would otherwise unroll into a union of 1000 tuples.
  ignoreMinAndMaxItems: true,
  unknownAny: true,
  unreachableDefinitions: false,
  enableConstEnums: false,
  inferStringEnumKeysFromValues: false,
  // Internal `#…` refs only: sanitizeSchema already replaced every other `$ref`; this is the
  // second lock. `cwd: '/'` keeps host paths out of error messages.
  cwd: '/',
  $refOptions: { resolve: { external: false, file: false, http: false } },
};

type Compiler = typeof import('json-schema-to-typescript');
let compiler: Promise<Compiler> | undefined;

/** Compiles `schema` into declarations whose main type is `rootName` (a safe identifier). */
export async function compileSchema(schema: unknown, rootName: string, limits: SchemaLimits): Promise<CompiledSchema> {
  let sanitized: ReturnType<typeof sanitizeSchema>;
  try {
    sanitized = sanitizeSchema(schema, limits);
  } catch {
    // A `$ref` chain thousands of links long can exhaust the stack.
    return fallback(rootName, 'the schema is too complex to read');
  }
  if (!sanitized.ok) return fallback(rootName, sanitized.reason);
  if (sanitized.schema === undefined) return { code: `export type ${rootName} = ${OPEN_RECORD};`, notes: sanitized.notes };

  let code: string;
  try {
    compiler ??= import('json-schema-to-typescript');
    const { compile } = await compiler;
    code = await compile(sanitized.schema, rootName, COMPILE_OPTIONS);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return fallback(rootName, `json-schema-to-typescript could not compile it: ${message.split('\n')[0]!.slice(0, 200)}`);
  }

  // sanitizeSchema keeps the root untitled, so the compiler names it `rootName`.
  if (!new RegExp(`^export (?:interface|type) ${rootName}\\b`, 'm').test(code)) {
    return fallback(rootName, `json-schema-to-typescript declared no type ${rootName}`);
  }
  return { code: escapeLineSeparators(code.trim()), notes: sanitized.notes };
}

function fallback(rootName: string, reason: string): CompiledSchema {
  const comment = docComment(`Not typed: ${lineCommentText(reason, 300).replace(/\.$/, '')}.`, '');
  return { code: `${comment}export type ${rootName} = ${OPEN_RECORD};`, fallbackReason: reason, notes: [] };
}
