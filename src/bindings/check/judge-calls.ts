/**
 * The certain mistakes of a script's calls against the catalogs of the servers they name: each
 * judged by the rule the call itself would apply when reached (validate-request.ts, tool-lookup.ts,
 * argument-check.ts, prompts.ts, resources.ts). What a call would do with an unlisted resource URI
 * is the server's to say: that is a warning, never a refusal.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { Node } from 'typescript';
import { nameList } from '../../common/closest-names.js';
import { everyErrorValidator } from '../operations/arguments/argument-check.js';
import { certainProblems } from './argument-verdict.js';
import { REQUEST_FIELDS, type CallRequest } from './call-requests.js';
import type { ServerCatalog } from './catalog-view.js';
import type { TypeScript } from './load-typescript.js';
import { literalValue, unwrap, type LiteralKey, type LiteralValue } from './literal-value.js';

export interface Finding {
  readonly node: Node;
  readonly code: string;
  readonly message: string;
  /** Certain to fail, but the script handles the failure (try, .catch): a warning, the run goes on. */
  readonly handled: boolean;
  /** Not certain at all: a warning. */
  readonly warning?: true;
}

/** Mistakes a call makes whatever the servers say: an unknown function, a field the request does not take. */
export function requestFindings(
  call: CallRequest | undefined,
  fn: { name: string; node: Node; optional: boolean; handled: boolean },
  functions: readonly string[],
): Finding[] {
  if (!functions.includes(fn.name)) {
    // `tools.hasOwnProperty(…)`, `tools.toString()`: an object's own methods work on tools too.
    if (fn.optional || fn.name in Object.prototype) return [];
    const message = `tools.${fn.name} is not a function of the script API. It has: ${nameList(fn.name, functions)}.`;
    return [{ node: fn.node, code: 'CHECK_UNKNOWN_FUNCTION', message, handled: fn.handled }];
  }
  const allowed = REQUEST_FIELDS[fn.name];
  if (call === undefined || allowed === undefined) return [];
  return call.strayFields.map(({ name, key }) => ({
    node: key.nameNode,
    code: 'CHECK_REQUEST_FIELD',
    message: `tools.${fn.name}: unknown field "${name}"; it takes ${allowed.join(', ')}.`,
    handled: fn.handled,
  }));
}

/**
 * The mistakes of one call against its server's catalog. `calledBefore`: the script calls a listed
 * tool of the same server earlier in its text; with a server whose tool list may change, that call
 * may be what makes an unlisted tool appear (dynamic toolsets): a warning then, not a refusal.
 */
export async function catalogFindings(ts: TypeScript, call: CallRequest, catalog: ServerCatalog | undefined, calledBefore = false): Promise<Finding[]> {
  const { fn, handled } = call.call;
  const at = (node: Node, code: string, message: string): Finding[] => [{ node, code, message, handled }];
  if (catalog === undefined || catalog.kind === 'skipped' || call.server === undefined) return [];
  if (catalog.kind === 'unknown') return at(call.server.node, 'CHECK_UNKNOWN_SERVER', catalog.message);
  const label = `tools.${fn} ${call.server.value}`;
  if ((fn === 'mcp_call' || fn === 'mcp_describe') && call.name !== undefined) {
    const tool = catalog.tools.get(call.name.value);
    if (tool === undefined) return [];
    if ('unknown' in tool) {
      if (!(catalog.toolsMayChange && calledBefore)) return at(call.name.node, 'CHECK_UNKNOWN_TOOL', tool.unknown);
      const message = `${tool.unknown} Its tools may change (listChanged) after the calls before this one.`;
      return [{ node: call.name.node, code: 'CHECK_UNKNOWN_TOOL', message, handled, warning: true }];
    }
    return fn === 'mcp_call' ? argumentFindings(ts, call, tool, `${label}/${tool.name}`) : [];
  }
  if (fn === 'mcp_prompt' && call.name !== undefined && catalog.prompts !== undefined) {
    if (catalog.prompts === null) return at(call.name.node, 'CHECK_UNKNOWN_PROMPT', `Server "${call.server.value}" publishes no prompts.`);
    const prompt = catalog.prompts.find((p) => p.name === call.name!.value);
    if (prompt === undefined) {
      const names = catalog.prompts.map((p) => p.name);
      const message = `Server "${call.server.value}" has no prompt "${call.name.value}". Its prompts: ${nameList(call.name.value, names)}.`;
      if (!(catalog.promptsMayChange && calledBefore)) return at(call.name.node, 'CHECK_UNKNOWN_PROMPT', message);
      return [
        {
          node: call.name.node,
          code: 'CHECK_UNKNOWN_PROMPT',
          message: `${message} Its prompts may change (listChanged) after the calls before this one.`,
          handled,
          warning: true,
        },
      ];
    }
    return promptFindings(ts, call, prompt.arguments ?? [], `${label}/${prompt.name}`);
  }
  if (fn === 'mcp_read' && call.uri !== undefined && catalog.resources !== undefined) {
    if (catalog.resources === null) return at(call.uri.node, 'CHECK_UNKNOWN_RESOURCE', `Server "${call.server.value}" publishes no resources.`);
    const { uris, templates } = catalog.resources;
    if (uris.includes(call.uri.value) || templates.some((t) => templateMatches(t, call.uri!.value))) return [];
    const message = `Server "${call.server.value}" lists no resource "${call.uri.value}" and no template it fills (it may still answer). Its resources: ${nameList(call.uri.value, uris)}.`;
    return [{ node: call.uri.node, code: 'CHECK_UNLISTED_RESOURCE', message, handled, warning: true }];
  }
  return [];
}

/** The call's `arguments` as written, or undefined when they are not known at all. */
function argumentsOf(ts: TypeScript, call: CallRequest): LiteralValue | { readonly notObject: Node } | undefined {
  if (call.args === undefined) {
    // No `arguments` field, and nothing that could add one: the call sends {}.
    if (!call.closed || call.name === undefined) return undefined;
    return { value: {}, sites: new Map([['', { node: call.name.node, unknown: false, closed: true, whole: true, keys: new Map() }]]) };
  }
  const literal = literalValue(ts, call.args.valueNode);
  const root = literal.sites.get('');
  if (root === undefined || root.unknown) return undefined;
  // `arguments: null` is sent as {} (the call reads `arguments ?? {}`); a string or an array is refused.
  if (literal.value === null) return { value: {}, sites: new Map([['', { ...root, closed: true, whole: true, keys: new Map() }]]) };
  if (typeof literal.value !== 'object' || Array.isArray(literal.value)) return { notObject: root.node };
  return literal;
}

async function argumentFindings(ts: TypeScript, call: CallRequest, tool: Tool, label: string): Promise<Finding[]> {
  const args = argumentsOf(ts, call);
  if (args === undefined) return [];
  const { handled } = call.call;
  if ('notObject' in args)
    return [{ node: args.notObject, code: 'CHECK_REQUEST_FIELD', message: `${label}: "arguments" must be an object of the tool's parameters.`, handled }];
  const schema = tool.inputSchema as object | undefined;
  if (typeof schema !== 'object' || schema === null) return [];
  const validate = await everyErrorValidator(schema);
  if (validate === undefined || validate(args.value)) return [];
  return certainProblems(validate.errors ?? [], args).map((problem) => ({
    node: problem.node,
    code: problem.code,
    message: `${label}: ${problem.text}`,
    handled,
  }));
}

function promptFindings(ts: TypeScript, call: CallRequest, declared: readonly { name: string; required?: boolean }[], label: string): Finding[] {
  const { handled } = call.call;
  let keys: ReadonlyMap<string, LiteralKey> = new Map();
  let closed = call.closed;
  if (call.args !== undefined) {
    const root = literalValue(ts, call.args.valueNode).sites.get('');
    if (root?.keys === undefined) return [];
    keys = root.keys;
    closed = root.closed;
  } else if (!closed) return [];
  const findings: Finding[] = [];
  for (const [name, key] of keys) {
    // Numbers and booleans are converted; null, objects and arrays are refused.
    const value = unwrap(ts, key.valueNode);
    const refused = key.final && (value.kind === ts.SyntaxKind.NullKeyword || ts.isObjectLiteralExpression(value) || ts.isArrayLiteralExpression(value));
    if (refused)
      findings.push({
        node: value,
        code: 'CHECK_ARGUMENT_TYPE',
        message: `${label}: argument "${name}" must be a string (prompt arguments are strings).`,
        handled,
      });
  }
  if (closed) {
    const missing = declared.filter((a) => a.required === true && !keys.has(a.name)).map((a) => `"${a.name}"`);
    const all = declared.map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
    const node = call.args?.valueNode ?? call.name!.node;
    if (missing.length > 0)
      findings.push({ node, code: 'CHECK_ARGUMENT_MISSING', message: `${label}: needs ${missing.join(', ')}. Its arguments: ${all}.`, handled });
  }
  return findings;
}

/** An RFC 6570 template read loosely: each `{…}` stands for any text. */
function templateMatches(template: string, uri: string): boolean {
  if (template.length > 2048) return false;
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(uri);
}
