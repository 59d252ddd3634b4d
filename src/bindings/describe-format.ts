/**
 * What `mcp_describe` answers, sized for a model: TypeScript-like types (from the typings
 * generator) instead of raw JSON Schemas. A tool's description carries its argument types with
 * each property's description; a server's catalog carries every tool's call signature with nested
 * types, plus its resources, resource templates and prompts.
 */
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type {
  PromptInfo,
  ResourceInfo,
  ResourceTemplateInfo,
  TaskSupport,
  ToolDescription,
  ToolSignature,
} from './contract.js';
import { summarize } from './summarize.js';
import { compileSchema } from './typings/compile-schema.js';
import { normalizeTypingsOptions } from './typings/generate-typings.js';

const LIMITS = normalizeTypingsOptions();

/** Compiled type text per schema object: a catalog's tools are compiled once per listing. */
const cache = new WeakMap<object, Map<string, Promise<string>>>();

/** The one-tool answer: full description, commented argument types, result type, hints. */
export async function describeTool(server: string, tool: Tool, withSchemas: boolean): Promise<ToolDescription> {
  const output = tool.outputSchema === undefined ? undefined : await typeText(tool.outputSchema, 'StructuredContent', true);
  const taskSupport = taskSupportOf(tool);
  return {
    server,
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description.trim() } : {}),
    arguments: await typeText(tool.inputSchema, 'Arguments', true),
    ...(output === undefined ? {} : { structuredContent: output }),
    ...(tool.annotations && Object.keys(tool.annotations).length > 0 ? { annotations: tool.annotations } : {}),
    ...(taskSupport ? { taskSupport } : {}),
    ...(withSchemas ? { inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}) } : {}),
  };
}

/** One line per tool for a server's catalog: `name(arguments: {…}): {…}`. */
export async function toolSignature(tool: Tool): Promise<ToolSignature> {
  const args = await typeText(tool.inputSchema, 'Arguments', false);
  const output = tool.outputSchema === undefined ? undefined : await typeText(tool.outputSchema, 'StructuredContent', false);
  const description = summarize(tool.description ?? tool.title);
  const hints = hintsOf(tool.annotations);
  const taskSupport = taskSupportOf(tool);
  return {
    name: tool.name,
    signature: `${tool.name}(${args === '{}' ? '' : `arguments: ${args}`})${output === undefined ? '' : `: ${output}`}`,
    ...(description ? { description } : {}),
    ...(hints.length > 0 ? { hints } : {}),
    ...(taskSupport ? { taskSupport } : {}),
  };
}

export function taskSupportOf(tool: Tool): TaskSupport | undefined {
  const support = tool.execution?.taskSupport;
  return support === 'optional' || support === 'required' ? support : undefined;
}

function hintsOf(annotations: Tool['annotations']): string[] {
  if (!annotations) return [];
  const hints: string[] = [];
  if (annotations.readOnlyHint === true) hints.push('readOnly');
  if (annotations.destructiveHint === true && annotations.readOnlyHint !== true) hints.push('destructive');
  if (annotations.idempotentHint === true) hints.push('idempotent');
  if (annotations.openWorldHint === true) hints.push('openWorld');
  return hints;
}

export function resourceInfo(resource: Resource): ResourceInfo {
  return {
    uri: resource.uri,
    name: resource.name,
    ...(resource.title ? { title: resource.title } : {}),
    ...(resource.description ? { description: summarize(resource.description) } : {}),
    ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
  };
}

export function templateInfo(template: ResourceTemplate): ResourceTemplateInfo {
  return {
    uriTemplate: template.uriTemplate,
    name: template.name,
    ...(template.title ? { title: template.title } : {}),
    ...(template.description ? { description: summarize(template.description) } : {}),
    ...(template.mimeType ? { mimeType: template.mimeType } : {}),
  };
}

export function promptInfo(prompt: Prompt): PromptInfo {
  const args = (prompt.arguments ?? []).map((a) => {
    const description = summarize(a.description);
    return `${a.name}${a.required ? '' : '?'}${description ? `: ${description}` : ''}`;
  });
  return {
    name: prompt.name,
    ...(prompt.title ? { title: prompt.title } : {}),
    ...(prompt.description ? { description: summarize(prompt.description) } : {}),
    ...(args.length > 0 ? { arguments: args } : {}),
  };
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
      const text = line.replace(/^\/\*\*?/, '').replace(/\*\/$/, '').replace(/^\*\s?/, '').trim();
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
