/**
 * What a found call asks for, as far as it is written literally: `tools.mcp_call({ server: 'a',
 * tool: 'b', arguments: {…} })`. A field counts only when nothing after it (a spread, a computed
 * key) could change it; its value only when it is a literal.
 */
import type { Node } from 'typescript';
import type { TypeScript } from './load-typescript.js';
import { literalValue, unwrap, type LiteralKey, type LiteralValue } from './literal-value.js';
import type { ScriptCall } from './find-calls.js';

/** The request fields of the script API's functions (operations/arguments/validate-request.ts). */
export const REQUEST_FIELDS: Readonly<Record<string, readonly string[]>> = {
  mcp_list: ['server', 'refresh'],
  mcp_describe: ['server', 'tool', 'schemas'],
  mcp_call: ['server', 'tool', 'arguments'],
  mcp_read: ['server', 'uri'],
  mcp_prompt: ['server', 'name', 'arguments'],
};

export interface LiteralString {
  readonly value: string;
  readonly node: Node;
}

export interface CallRequest {
  readonly call: ScriptCall;
  readonly request: LiteralValue;
  /** The request's own keys are all written out. */
  readonly closed: boolean;
  readonly server?: LiteralString;
  /** `tool` (mcp_call, mcp_describe) or `name` (mcp_prompt). */
  readonly name?: LiteralString;
  readonly uri?: LiteralString;
  /** The `arguments` field: absent (undefined with `closed`), or where it is written. */
  readonly args?: LiteralKey;
  /** Fields the function does not take, written for sure. */
  readonly strayFields: readonly { readonly name: string; readonly key: LiteralKey }[];
}

/** The request of `call` when it is an object literal; undefined otherwise (nothing is known). */
export function requestOf(ts: TypeScript, call: ScriptCall): CallRequest | undefined {
  const first = call.call.arguments[0];
  if (first === undefined || !ts.isObjectLiteralExpression(unwrap(ts, first))) return undefined;
  const request = literalValue(ts, first);
  const root = request.sites.get('');
  if (root?.keys === undefined) return undefined;
  const keys = root.keys;
  const text = (field: string): LiteralString | undefined => {
    const key = keys.get(field);
    const site = request.sites.get(`/${field}`);
    if (key?.final !== true || site === undefined || site.unknown) return undefined;
    const value = unwrap(ts, site.node);
    return ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value) ? { value: value.text, node: value } : undefined;
  };
  const allowed = REQUEST_FIELDS[call.fn];
  const strayFields =
    allowed === undefined ? [] : [...keys].filter(([name, key]) => !allowed.includes(name) && key.final && key.literal).map(([name, key]) => ({ name, key }));
  const args = keys.get('arguments');
  const nameField = call.fn === 'mcp_prompt' ? 'name' : 'tool';
  return {
    call,
    request,
    closed: root.closed,
    ...optional('server', text('server')),
    ...optional('name', text(nameField)),
    ...optional('uri', call.fn === 'mcp_read' ? text('uri') : undefined),
    ...optional('args', args?.final === true ? args : undefined),
    strayFields,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
