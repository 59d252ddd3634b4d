import type { CallResult, DescribeResult, ListResult, ServerDescription } from '../bindings/index.js';

/** Pads columns so a list of rows reads as a table. */
export function table(rows: readonly (readonly string[])[], indent = ''): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) => indent + row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '))
    .join('\n');
}

export function renderList(result: ListResult): string {
  if (result.servers.length === 0) return `No servers configured (${result.configPath}).`;
  const blocks: string[] = [];
  for (const server of result.servers) {
    if (server.status === 'connected') {
      const head = table([[server.name, 'connected', server.transport, `${server.tools.length} tools`]]);
      const tools = table(server.tools.map((t) => [t.name, t.description]), '  ');
      blocks.push(server.tools.length > 0 ? `${head}\n${tools}` : head);
    } else if (server.status === 'disabled') {
      blocks.push(table([[server.name, 'disabled', server.transport]]));
    } else if (server.status === 'auth_required') {
      blocks.push(`${server.name}  auth_required  ${server.transport}\n${indentLines(server.error.message, '  ')}`);
    } else {
      blocks.push(`${server.name}  error  ${server.error.code}\n${indentLines(server.error.message, '  ')}`);
    }
  }
  return `${blocks.join('\n\n')}\n\n(config: ${result.configPath})`;
}

function isServerDescription(result: DescribeResult): result is ServerDescription {
  return 'tools' in result;
}

export function renderDescribe(result: DescribeResult): string {
  if (!isServerDescription(result)) {
    const lines = [`${result.server} / ${result.name}${result.title ? ` (${result.title})` : ''}`];
    if (result.description) lines.push('', result.description);
    lines.push('', 'Input schema:', JSON.stringify(result.inputSchema, null, 2));
    if (result.outputSchema) lines.push('', 'Output schema:', JSON.stringify(result.outputSchema, null, 2));
    if (result.annotations) lines.push('', 'Annotations:', JSON.stringify(result.annotations, null, 2));
    return lines.join('\n');
  }
  const info = result.serverInfo;
  const lines = [
    `${result.server}: ${info ? `${info.name} ${info.version}` : 'unknown server'}` +
      (result.protocolVersion ? ` (protocol ${result.protocolVersion})` : ''),
  ];
  if (result.instructions) lines.push('', 'Instructions:', indentLines(result.instructions, '  '));
  lines.push('', `Tools (${result.tools.length}):`);
  for (const tool of result.tools) {
    const props = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
    const required = new Set(tool.inputSchema.required ?? []);
    const params = Object.keys(props).map((p) => (required.has(p) ? p : `${p}?`));
    lines.push(`  ${tool.name}(${params.join(', ')})`);
    if (tool.description) lines.push(indentLines(tool.description.trim(), '      '));
  }
  return lines.join('\n');
}

export interface RenderedBlock {
  readonly text?: string;
  readonly image?: { readonly data: string; readonly mimeType: string };
}

/** Turns a call result into printable text and images to write. */
export function callBlocks(result: CallResult): RenderedBlock[] {
  const blocks: RenderedBlock[] = [];
  for (const block of result.content ?? []) {
    if (block.type === 'text') blocks.push({ text: block.text });
    else if (block.type === 'image') blocks.push({ image: { data: block.data, mimeType: block.mimeType } });
    else blocks.push({ text: JSON.stringify(block, null, 2) });
  }
  if (result.structuredContent !== undefined && blocks.every((b) => b.text === undefined)) {
    blocks.push({ text: JSON.stringify(result.structuredContent, null, 2) });
  }
  return blocks;
}

function indentLines(text: string, indent: string): string {
  return text
    .split('\n')
    .map((line) => indent + line)
    .join('\n');
}
