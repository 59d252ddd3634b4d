/**
 * What `mcp_describe` answers, sized for a model: TypeScript-like types (from the typings
 * generator) instead of raw JSON Schemas. A tool's description carries its argument types with
 * each property's description; a server's catalog carries every tool's call signature with nested
 * types, plus its resources, resource templates and prompts.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { TaskSupport, ToolDescription } from '../contract.js';
import { observedText, type Observation } from './observed-types/observation.js';
import { summarize } from './summarize.js';
import { uiResourceOf } from './app-visibility.js';
import { compileSchema } from '../typings/compile-schema.js';
import { normalizeTypingsOptions } from '../typings/generate-typings.js';

const LIMITS = normalizeTypingsOptions();

/** Compiled type text per schema object: a catalog's tools are compiled once per listing. */
const cache = new WeakMap<object, Map<string, Promise<string>>>();

/**
 * The one-tool answer: full description, commented argument types, result type (declared, or
 * observed from earlier results when the tool declares none), hints.
 */
export async function describeTool(server: string, tool: Tool, withSchemas: boolean, observed?: Observation): Promise<ToolDescription> {
  const output = tool.outputSchema === undefined ? undefined : await typeText(tool.outputSchema, 'StructuredContent', true);
  const returns = output === undefined && observed !== undefined ? observedText(observed) : undefined;
  const taskSupport = taskSupportOf(tool);
  const ui = uiResourceOf(tool);
  return {
    server,
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description.trim() } : {}),
    arguments: await typeText(tool.inputSchema, 'Arguments', true),
    ...(output === undefined ? {} : { structuredContent: output }),
    ...(returns === undefined ? {} : { returns }),
    ...(tool.annotations && Object.keys(tool.annotations).length > 0 ? { annotations: tool.annotations } : {}),
    ...(taskSupport ? { taskSupport } : {}),
    ...(ui === undefined ? {} : { ui }),
    ...(withSchemas ? { inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}) } : {}),
  };
}

/**
 * A tool's catalog line: `({ …arguments }) => { …structuredContent } — summary [flags]`, or
 * `(…) returns (observed over 3 calls) { … } — …` for a tool with no outputSchema seen returning data.
 */
export async function toolLine(tool: Tool, observed?: Observation): Promise<string> {
  const description = summarize(tool.description ?? tool.title);
  const flags = flagsOf(tool);
  return (await toolSignature(tool, observed)) + (description ? ` — ${description}` : '') + (flags.length > 0 ? ` [${flags.join(', ')}]` : '');
}

/** The head of a catalog line (what `mcp_search` returns too): `({ …arguments }) => { …structuredContent }`. */
export async function toolSignature(tool: Tool, observed?: Observation): Promise<string> {
  const args = await typeText(tool.inputSchema, 'Arguments', false);
  const output = tool.outputSchema === undefined ? undefined : await typeText(tool.outputSchema, 'StructuredContent', false);
  const returns = output === undefined && observed !== undefined ? ` returns ${observedText(observed)}` : '';
  return `(${args === '{}' || args === '{ [key: string]: unknown }' ? '' : args})${output === undefined ? returns : ` => ${output}`}`;
}

export function taskSupportOf(tool: Tool): TaskSupport | undefined {
  const support = tool.execution?.taskSupport;
  return support === 'optional' || support === 'required' ? support : undefined;
}

/** What matters before calling: may it write, does it run as a task, does an MCP App show its results. */
function flagsOf(tool: Tool): string[] {
  const flags: string[] = [];
  const annotations = tool.annotations;
  if (annotations?.readOnlyHint === true) flags.push('readOnly');
  else if (annotations?.destructiveHint === true) flags.push('destructive');
  const task = taskSupportOf(tool);
  if (task) flags.push(`task ${task}`);
  if (uiResourceOf(tool) !== undefined) flags.push('ui');
  return flags;
}

/** `name (mimeType) — description`; the name is left out when the URI already ends with it. */
export function resourceLine(resource: Resource | ResourceTemplate): string {
  const uri = 'uri' in resource ? resource.uri : resource.uriTemplate;
  const name = resource.title ?? resource.name;
  const description = summarize(resource.description);
  const parts = [uri.endsWith(`/${name}`) ? '' : name, resource.mimeType ? `(${resource.mimeType})` : '', description ? `— ${description}` : ''];
  return parts.filter((part) => part !== '').join(' ');
}

export function promptLine(prompt: Prompt): string {
  const args = (prompt.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
  const description = summarize(prompt.description ?? prompt.title);
  return `(${args})${description ? ` — ${description}` : ''}`;
}

/** A schema as one line of TypeScript: the root type inline, named sub-types after `where`. */
export function typeText(schema: object, rootName: string, withComments: boolean): Promise<string> {
  let bySchema = cache.get(schema);
  if (!bySchema) {
    bySchema = new Map();
    cache.set(schema, bySchema);
  }
  const key = `${rootName}\n${withComments}`;
  let text = bySchema.get(key);
  if (!text) {
    text = compileSchema(schema, rootName, LIMITS).then((compiled) => compact(compiled.code, rootName, withComments));
    bySchema.set(key, text);
  }
  return text;
}

/** json-schema-to-typescript's declarations → `{ a: string; b?: number[] } where Foo = …`. */
export function compact(code: string, rootName: string, withComments: boolean): string {
  const declarations = splitDeclarations(joinLines(code, withComments));
  const root = declarations.find((d) => d.name === rootName);
  const others = declarations.filter((d) => d !== root).map((d) => `${d.name} = ${d.body}`);
  const head = root?.body ?? '{ [key: string]: unknown }';
  return others.length === 0 ? head : `${head} where ${others.join(', ')}`;
}

/** Lines into one, with `;` between members and doc comments folded to `/** … *\/`. */
function joinLines(code: string, withComments: boolean): string {
  const tokens: string[] = [];
  let comment: string[] | undefined;
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (comment !== undefined || line.startsWith('/*')) {
      comment ??= [];
      const text = line
        .replace(/^\/\*\*?/, '')
        .replace(/\*\/$/, '')
        .replace(/^\*\s?/, '')
        .trim();
      if (text !== '') comment.push(text);
      if (line.endsWith('*/')) {
        if (withComments && comment.length > 0) tokens.push(`/** ${comment.join(' ')} */`);
        comment = undefined;
      }
      continue;
    }
    tokens.push(line);
  }
  // A comment right before a declaration describes the whole schema: the tool's description has it.
  const kept = tokens.filter((token, i) => !(token.startsWith('/**') && tokens[i + 1]?.startsWith('export ')));
  let out = '';
  let previous: string | undefined;
  for (const token of kept) {
    if (previous !== undefined) out += separator(previous, token);
    out += token;
    previous = token;
  }
  return out;
}

function separator(previous: string, next: string): string {
  if (/[{(|&,]$/.test(previous) || previous.endsWith('*/')) return ' ';
  if (/^[})\]|&]/.test(next)) return ' ';
  if (/^export /.test(next)) return '\n';
  return '; ';
}

interface Declaration {
  readonly name: string;
  readonly body: string;
}

function splitDeclarations(text: string): Declaration[] {
  const declarations: Declaration[] = [];
  for (const part of text.split('\n')) {
    const match = /^export (interface|type) ([A-Za-z0-9_$]+)(?: =)? ([\s\S]*)$/.exec(part.trim());
    if (!match) continue;
    const body = match[1] === 'type' ? match[3]!.replace(/;\s*$/, '') : match[3]!;
    declarations.push({ name: match[2]!, body: body.trim() });
  }
  return declarations;
}
