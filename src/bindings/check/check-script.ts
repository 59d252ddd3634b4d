/**
 * The check before a run: parse the script, find its `tools.*` calls, read the catalogs of the
 * servers they name, and judge each call as the call itself would when reached. Bounded: a script
 * too large, too deep or too slow to check runs unchecked (a note in its logs), never refused.
 */
import { BerryError } from '../../common/errors.js';
import type { OperationContext } from '../operations/context.js';
import { requestOf, type CallRequest } from './call-requests.js';
import { catalogsFor, type ServerCatalog, type ServerNeeds } from './catalog-view.js';
import { findCalls } from './find-calls.js';
import { catalogFindings, requestFindings, type Finding } from './judge-calls.js';
import { loadTypeScript, typeScriptLoaded } from './load-typescript.js';
import { parseScript, type ParsedScript } from './parse-script.js';

export interface ScriptCheckOptions {
  /** The names of the run's `tools.*` functions. */
  readonly functions: readonly string[];
  /** Whose learned result types the warnings read (OperationOptions.client). */
  readonly client?: object;
  readonly signal?: AbortSignal;
  /** Longest wait for the servers' catalogs; past it the run goes on unchecked. @default 300000 */
  readonly timeoutMs?: number;
  /** The type checker's time for the warnings, once warm; past it they are given up; 0: no type warnings. @default 15 */
  readonly typeBudgetMs?: number;
}

export interface CheckProblem {
  readonly line: number;
  readonly column: number;
  readonly code: string;
  readonly message: string;
}

export interface ScriptCheck {
  /** Certain mistakes: the run must not start. */
  readonly problems: readonly CheckProblem[];
  /** For the run's log (level warn): what may fail, what the script handles, what was not checked. */
  readonly warnings: readonly string[];
  /** The type checker's warnings, for the run's log (a promise: the checker's module loads only when a script passed). */
  readonly typeWarnings?: Promise<readonly string[]>;
}

/** A longer script runs unchecked. */
export const MAX_CHECKED_CHARS = 256 * 1024;
/** Syntax nodes walked at most; calls judged at most. */
const MAX_NODES = 400_000;
const MAX_CALLS = 2_000;
/** Warnings of the call check kept at most. */
const MAX_WARNED = 20;
/** Parsing and walking past this many ms: the run goes on unchecked. */
const MAX_PARSE_MS = 2_000;

const NOTHING: ScriptCheck = { problems: [], warnings: [] };
const unchecked = (why: string): ScriptCheck => ({ problems: [], warnings: [`berry-mcp did not check this script before running it: ${why}.`] });

export async function checkScript(context: OperationContext, code: string, options: ScriptCheckOptions): Promise<ScriptCheck> {
  // No TypeScript to load for a script that names no tools (`text(1)`).
  if (!/\btools\b/.test(code)) return NOTHING;
  if (code.length > MAX_CHECKED_CHARS) return unchecked(`it is longer than ${MAX_CHECKED_CHARS} characters`);
  // Cold, loading the compiler takes ≈ 350 ms of this thread: the servers the script names start meanwhile.
  if (!typeScriptLoaded()) startNamedServers(context, code, options);
  const ts = await loadTypeScript();
  const started = performance.now();
  let parsed: ParsedScript | undefined;
  let found: ReturnType<typeof findCalls>;
  try {
    parsed = parseScript(ts, code);
    found = parsed && findCalls(ts, parsed.file, MAX_NODES);
  } catch (error) {
    // The parser's own recursion on a deeply nested script.
    if (error instanceof RangeError) return unchecked('it nests too deeply to parse');
    throw error;
  }
  if (parsed === undefined || found === undefined) return NOTHING;
  if (performance.now() - started > MAX_PARSE_MS) return unchecked(`reading it took over ${MAX_PARSE_MS} ms`);
  const notes =
    found.truncated || found.calls.length > MAX_CALLS ? ['berry-mcp checked only the first part of this script before running it (it is very large).'] : [];
  const calls = found.calls.slice(0, MAX_CALLS);

  const findings: Finding[] = [];
  const requests: CallRequest[] = [];
  const needs = new Map<string, ServerNeeds>();
  for (const call of calls) {
    const request = requestOf(ts, call);
    findings.push(...requestFindings(request, { name: call.fn, node: call.fnNode, optional: call.optional, handled: call.handled }, options.functions));
    if (request?.server === undefined || !options.functions.includes(call.fn)) continue;
    requests.push(request);
    let need = needs.get(request.server.value);
    if (need === undefined) needs.set(request.server.value, (need = { tools: new Set(), prompts: false, resources: false, connect: false }));
    if ((call.fn === 'mcp_call' || call.fn === 'mcp_describe') && request.name) need.tools.add(request.name.value);
    if (call.fn === 'mcp_prompt') need.prompts = true;
    if (call.fn === 'mcp_read') need.resources = true;
    need.connect ||= need.tools.size > 0 || need.prompts || need.resources;
  }

  const catalogs = needs.size === 0 ? new Map<string, ServerCatalog>() : await readCatalogs(context, needs, options);
  if (catalogs === undefined) return report(parsed, findings, notes);
  for (const request of requests) {
    const catalog = catalogs.get(request.server!.value);
    findings.push(...(await catalogFindings(ts, request, catalog, calledBefore(request, requests, catalog))));
  }
  const result = report(parsed, findings, notes);
  if (result.problems.length > 0) return result;
  // The module and the typings generator load only here.
  const later = import('./type-warnings.js').then(({ typeWarnings }) => typeWarnings(ts, parsed, code, catalogs, options.typeBudgetMs)).catch(() => []);
  return { ...result, typeWarnings: later };
}

/** Another call of the same server, to a tool it lists, is written before `request`. */
function calledBefore(request: CallRequest, requests: readonly CallRequest[], catalog: ServerCatalog | undefined): boolean {
  if (catalog?.kind !== 'listed') return false;
  return requests.some((other) => {
    const tool = other.name === undefined ? undefined : catalog.tools.get(other.name.value);
    return (
      other.call.fn === 'mcp_call' &&
      other.server?.value === request.server?.value &&
      other.call.call.pos < request.call.call.pos &&
      tool !== undefined &&
      !('unknown' in tool)
    );
  });
}

/**
 * Starts the servers of the `server: '…', tool|name|uri: …` literals the text holds, without
 * waiting: what the check will ask for once the script is parsed (a name not configured is only looked up).
 */
function startNamedServers(context: OperationContext, code: string, options: ScriptCheckOptions): void {
  const named = /\bserver\s*:\s*(['"`])([\w.@:/-]{1,200})\1\s*,\s*(?:tool|name|uri)\s*:/g;
  const names = new Set([...code.matchAll(named)].slice(0, 32).map((m) => m[2]!));
  const needs = new Map([...names].map((name): [string, ServerNeeds] => [name, { tools: new Set(), prompts: false, resources: false, connect: true }]));
  if (needs.size > 0) readCatalogs(context, needs, options).catch(() => {});
}

/** The catalogs, or undefined when the config cannot be read now (the run then reports it). */
async function readCatalogs(
  context: OperationContext,
  needs: Map<string, ServerNeeds>,
  options: ScriptCheckOptions,
): Promise<Map<string, ServerCatalog> | undefined> {
  const limit = AbortSignal.timeout(options.timeoutMs ?? 300_000);
  const signal = options.signal ? AbortSignal.any([options.signal, limit]) : limit;
  try {
    return await catalogsFor(context, needs, options.client, signal);
  } catch (error) {
    if (error instanceof BerryError || signal.aborted) return undefined;
    throw error;
  }
}

function report(parsed: ParsedScript, findings: readonly Finding[], notes: readonly string[]): ScriptCheck {
  const placed = findings.map((f) => ({ ...f, ...parsed.at(f.node.getStart(parsed.file)) })).sort((a, b) => a.line - b.line || a.column - b.column);
  const problems = placed.filter((f) => !f.handled && f.warning !== true).map(({ line, column, code, message }) => ({ line, column, code, message }));
  const warnings = placed
    .filter((f) => f.handled || f.warning === true)
    .map((f) => `${f.line}:${f.column} ${f.code}: ${f.message}${f.handled && f.warning !== true ? ' (this call will fail; the script catches it)' : ''}`);
  return { problems, warnings: [...notes, ...warnings.slice(0, MAX_WARNED)] };
}
