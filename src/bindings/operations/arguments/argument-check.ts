/**
 * Arguments checked against the tool's `inputSchema` before the call is sent, with Ajv (draft
 * 2020-12 by default, the class a schema's `$schema` names otherwise, see dialectsFor). Only what
 * is certainly wrong is refused: the schema is loosened first where servers accept more than they
 * declare (loosen-schema.ts), and `format` is an annotation, as 2020-12 says (servers' parsers
 * differ: pydantic takes a date-time without a zone and a UUID without hyphens).
 * A mismatch is MCP_INVALID_ARGUMENT naming the path, the expected type and what was given; a
 * schema Ajv cannot compile is logged once and the call goes out unchecked (a broken schema must
 * not block a working server). Compiled validators are cached per schema object (the hot path: a
 * WeakMap lookup) and by schema hash (a catalog listed again compiles nothing).
 */
import { nodeCrypto } from '../../../common/lazy-node.js';
import type { Tool } from '@modelcontextprotocol/client';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { BerryError } from '../../../common/errors.js';
import { argumentProblem } from './argument-message.js';
import { loosenSchema, SchemaTooDeepError } from './loosen-schema.js';
import type { LogSink } from '../../log.js';

type Compiled = { readonly validate: ValidateFunction } | { readonly reason: string; readonly hash: string };

/** Compiled schemas kept by hash; past this the oldest go (a long-lived serve meets many catalogs). */
const MAX_CACHED = 512;
/** A larger schema (as JSON) is not compiled: its calls go out unchecked, as for typings (256 KB). */
const MAX_SCHEMA_CHARS = 256 * 1024;

const byObject = new WeakMap<object, Compiled>();
const byHash = new Map<string, Promise<Compiled>>();
const everyByObject = new WeakMap<object, Promise<ValidateFunction | undefined>>();

export class ArgumentChecker {
  readonly #log: LogSink;
  /** `server\nhash` of schemas already reported as not compilable. */
  readonly #reported = new Set<string>();

  constructor(log: LogSink) {
    this.#log = log;
  }

  /**
   * Throws MCP_INVALID_ARGUMENT when `args` do not match the tool's inputSchema. Synchronous once
   * the schema is compiled (undefined); the first call of a schema returns a promise.
   */
  check(server: string, tool: Tool, args: Record<string, unknown>): Promise<void> | undefined {
    const schema = tool.inputSchema as object | undefined;
    if (typeof schema !== 'object' || schema === null) return undefined;
    const compiled = byObject.get(schema);
    if (compiled !== undefined) return this.#apply(compiled, server, tool, args);
    return compile(schema).then((result) => {
      byObject.set(schema, result);
      this.#apply(result, server, tool, args);
    });
  }

  #apply(compiled: Compiled, server: string, tool: Tool, args: Record<string, unknown>): undefined {
    if ('reason' in compiled) {
      this.#reportOnce(server, tool.name, compiled);
      return undefined;
    }
    if (compiled.validate(args)) return undefined;
    const errors = (compiled.validate.errors ?? []) as ErrorObject[];
    throw new BerryError(
      'MCP_INVALID_ARGUMENT',
      `Tool "${tool.name}" of server "${server}" was not called: ${argumentProblem(errors, args)}. Nothing was sent; mcp_describe shows the argument types.`,
    );
  }

  #reportOnce(server: string, tool: string, compiled: { readonly reason: string; readonly hash: string }): void {
    const key = `${server}\n${compiled.hash}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.#log({ server, kind: 'error', message: `the inputSchema of tool "${tool}" cannot be checked (${compiled.reason}); its calls go out unchecked` });
  }
}

/**
 * The call check's validator for `schema`, compiled to report every error rather than the first
 * (what it accepts is the same): the check before a run lists every mistake. Undefined when the
 * call check would let the call out unchecked.
 */
export function everyErrorValidator(schema: object): Promise<ValidateFunction | undefined> {
  let found = everyByObject.get(schema);
  if (found === undefined) {
    found = compile(schema, true).then((result) => ('validate' in result ? result.validate : undefined));
    everyByObject.set(schema, found);
  }
  return found;
}

function compile(schema: object, allErrors = false): Promise<Compiled> {
  const json = JSON.stringify(schema);
  const digest = nodeCrypto().createHash('sha256').update(json).digest('hex');
  const hash = allErrors ? `all:${digest}` : digest;
  let compiled = byHash.get(hash);
  if (compiled === undefined) {
    compiled =
      json.length > MAX_SCHEMA_CHARS
        ? Promise.resolve({ reason: `it is ${json.length} characters as JSON, over ${MAX_SCHEMA_CHARS}`, hash })
        : compileSchema(schema, hash, json, allErrors).catch((error: unknown) => ({ reason: `Ajv did not load: ${String(error)}`.slice(0, 200), hash }));
    byHash.set(hash, compiled);
    if (byHash.size > MAX_CACHED) byHash.delete(byHash.keys().next().value!);
  }
  return compiled;
}

type Dialect = '2020' | '2019' | '07';
type AjvInstance = import('ajv').default;

/** Keywords only 2019-09/2020-12 know (Ajv's next, dynamic and unevaluated vocabularies, prefixItems). */
const NEWER_KEYWORDS =
  /"(?:prefixItems|\$dynamicRef|\$dynamicAnchor|\$recursiveRef|\$recursiveAnchor|dependentRequired|dependentSchemas|minContains|maxContains|unevaluatedProperties|unevaluatedItems)"/;

/**
 * The dialects to try for a schema: the one its `$schema` names. Without one, MCP's default is
 * 2020-12; a schema that uses none of 2020-12's own keywords reads the same in draft-07, whose
 * class the SDK has loaded already (loading 2020-12's costs a one-shot `call` ≈ 20 ms), and a
 * draft-07 `items: [...]` tuple only means something there. Otherwise 2020-12, then draft-07.
 */
export function dialectsFor($schema: unknown, json: string): readonly Dialect[] {
  if (typeof $schema === 'string') {
    if (/json-schema\.org\/draft\/2020-12\//.test($schema)) return ['2020'];
    if (/json-schema\.org\/draft\/2019-09\//.test($schema)) return ['2019'];
    // draft-04 and draft-06 differ from 07 in little; 07's class reads them or says why not.
    if (/json-schema\.org\/draft-0[4-7]\//.test($schema)) return ['07'];
  }
  return NEWER_KEYWORDS.test(json) ? ['2020', '07'] : ['07'];
}

async function compileSchema(schema: object, hash: string, json: string, allErrors: boolean): Promise<Compiled> {
  // The dialect is picked here from `$schema`, so Ajv needs no meta-schema for it: the root's
  // `$schema` (and `$id`, which would collide across tools in one Ajv) are left out.
  const { $schema, $id: _id, ...own } = schema as Record<string, unknown>;
  let rest: Record<string, unknown>;
  try {
    rest = loosenSchema(own);
  } catch (error) {
    if (error instanceof SchemaTooDeepError) return { reason: error.message, hash };
    throw error;
  }
  let reason = 'no dialect';
  for (const dialect of dialectsFor($schema, json)) {
    const ajv = await ajvFor(dialect, allErrors);
    try {
      const validate = ajv.compile(rest);
      return { validate };
    } catch (error) {
      reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
    } finally {
      // The validator keeps working; the instance forgets the schema (and any `$id` in it).
      ajv.removeSchema(rest);
    }
  }
  return { reason, hash };
}

const instances = new Map<string, Promise<AjvInstance>>();

/** One Ajv per dialect, loaded on first use: the CLI's start-up does not pay for it. */
function ajvFor(dialect: Dialect, allErrors: boolean): Promise<AjvInstance> {
  const key = `${dialect}${allErrors ? ':all' : ''}`;
  let instance = instances.get(key);
  if (instance === undefined) {
    instance = (async () => {
      const module = await (dialect === '2020' ? import('ajv/dist/2020.js') : dialect === '2019' ? import('ajv/dist/2019.js') : import('ajv'));
      const Ajv = module.default as unknown as new (options: object) => AjvInstance;
      // strict off: real servers' schemas carry keywords Ajv does not know; no console output.
      // No meta-schema check: compiling 2020-12's costs ~100 ms on a one-shot `call`, and Ajv
      // still refuses a malformed keyword (`type: "strin"`, `required: true`) while compiling.
      // Formats are annotations: not checked, and an unknown one is no error.
      return new Ajv({ strict: false, allErrors, verbose: true, logger: false, validateFormats: false, validateSchema: false });
    })();
    instances.set(key, instance);
  }
  return instance;
}
