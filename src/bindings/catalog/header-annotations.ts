/**
 * `x-mcp-header` annotations (2026-07-28, Streamable HTTP): a tool parameter the server wants
 * mirrored into an `Mcp-Param-<name>` header. A tool whose annotations break the rules is left out
 * of the catalog, as the revision asks of a client, with a warning naming it: calling it would send
 * headers the server must refuse. The SDK's callTool writes the headers of a valid tool.
 */
import type { Tool } from '@modelcontextprotocol/client';

// RFC 9110 token
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES: ReadonlySet<unknown> = new Set(['string', 'integer', 'boolean']);
/** Subschemas a header's property must not sit under: only a chain of `properties` reaches it. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'additionalProperties',
  'patternProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
  'dependentSchemas',
  'contains',
];

/** Why the tool's annotations are invalid, or undefined when they are fine (or absent). */
export function headerAnnotationProblem(tool: Tool): string | undefined {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: readonly string[], reachable: boolean, depth: number): string | undefined => {
    if (typeof node !== 'object' || node === null || depth > 64) return undefined;
    const schema = node as Record<string, unknown>;
    const where = path.length === 0 ? 'the input schema' : `"${path.join('.')}"`;
    if (Object.hasOwn(schema, 'x-mcp-header')) {
      const name = schema['x-mcp-header'];
      if (!reachable || path.length === 0) return `${where} has x-mcp-header outside a chain of "properties"`;
      if (typeof name !== 'string' || !TOKEN.test(name)) return `${where} has an x-mcp-header that is not a non-empty HTTP token`;
      if (!HEADER_TYPES.has(schema['type']))
        return `${where} has x-mcp-header on a ${JSON.stringify(schema['type'] ?? 'untyped')} property (only string, integer and boolean)`;
      const earlier = seen.get(name.toLowerCase());
      if (earlier !== undefined) return `x-mcp-header "${name}" is declared twice (also as "${earlier}")`;
      seen.set(name.toLowerCase(), name);
    }
    const properties = schema['properties'];
    if (typeof properties === 'object' && properties !== null) {
      for (const [key, child] of Object.entries(properties)) {
        const problem = visit(child, [...path, key], reachable, depth + 1);
        if (problem) return problem;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      const branches = Array.isArray(sub)
        ? sub
        : typeof sub === 'object' && sub !== null
          ? keyword === '$defs' || keyword === 'definitions' || keyword === 'patternProperties' || keyword === 'dependentSchemas'
            ? Object.values(sub)
            : [sub]
          : [];
      for (const branch of branches) {
        const problem = visit(branch, [...path, `<${keyword}>`], false, depth + 1);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return visit(tool.inputSchema, [], true, 0);
}

const definitions = new WeakMap<Tool, Tool | null>();

/**
 * What the SDK's callTool needs to write a tool's Mcp-Param-* headers: its input schema only (no
 * outputSchema, so the SDK does not judge results the legacy era's calls do not), or undefined for
 * a tool without annotations (then a plain request does, and costs less). Memoized per listed tool.
 */
export function headerDefinition(tool: Tool): Tool | undefined {
  let definition = definitions.get(tool);
  if (definition === undefined) {
    const { outputSchema: _output, ...input } = tool;
    definition = JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"') ? input : null;
    definitions.set(tool, definition);
  }
  return definition ?? undefined;
}

/** The tools whose annotations are valid, and a warning for each one left out. */
export function withoutInvalidHeaders(tools: readonly Tool[]): { tools: Tool[]; warnings: string[] } {
  const kept: Tool[] = [];
  const warnings: string[] = [];
  for (const tool of tools) {
    const problem = JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"') ? headerAnnotationProblem(tool) : undefined;
    if (problem === undefined) kept.push(tool);
    else warnings.push(`tool "${tool.name}" was left out: its x-mcp-header annotations are invalid (${problem})`);
  }
  return { tools: kept, warnings };
}
