import { isDeepStrictEqual } from 'node:util';
import type { CallResult, DescribeResult, ListResult, ServerDescription } from '../../bindings/index.js';
import { terminalSafe } from './terminal-safe.js';

// Everything rendered here is for people: servers' text goes through terminalSafe (--json does not come here).

/** Pads columns so a list of rows reads as a table. */
export function table(rows: readonly (readonly string[])[], indent = ''): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => indent + row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}

export function renderList(result: ListResult): string {
  return terminalSafe(listText(result));
}

function listText(result: ListResult): string {
  if (result.servers.length === 0) return `No servers configured (${result.configPath}).`;
  const blocks: string[] = [];
  for (const server of result.servers) {
    if (server.status === 'connected') {
      const cached = server.cached ? [`saved catalog, ${age(server.cached.ageMs)} old`] : [];
      const head = table([
        [server.name, 'connected', server.transport, `${server.tools.length} tools`, ...cached, ...(server.protocol ? [`MCP ${server.protocol}`] : [])],
      ]);
      const tools = table(
        server.tools.map((t) => [t.name, t.description]),
        '  ',
      );
      const warnings = (server.warnings ?? []).map((w) => `  warning: ${w}`).join('\n');
      blocks.push([head, server.tools.length > 0 ? tools : '', warnings].filter((part) => part !== '').join('\n'));
    } else if (server.status === 'disabled') {
      blocks.push(table([[server.name, 'disabled', server.transport]]));
    } else if (server.status === 'auth_required') {
      blocks.push(`${server.name}  auth_required  ${server.transport}\n${indentLines(server.error.message, '  ')}`);
    } else {
      blocks.push(`${server.name}  error  ${server.error.code}\n${indentLines(server.error.message, '  ')}`);
    }
  }
  return `${blocks.join('\n\n')}\n\n${summaryLine(result)} (config: ${result.configPath})`;
}

/** `3 servers: 1 connected, 2 errors`. */
function summaryLine(result: ListResult): string {
  const count = (status: string): number => result.servers.filter((s) => s.status === status).length;
  const parts = [`${count('connected')} connected`];
  const errors = count('error');
  const disabled = count('disabled');
  if (errors > 0) parts.push(`${errors} error${errors === 1 ? '' : 's'}`);
  if (disabled > 0) parts.push(`${disabled} disabled`);
  const n = result.servers.length;
  return `${n} server${n === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

function age(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

function isServerDescription(result: DescribeResult): result is ServerDescription {
  return 'tools' in result;
}

export function renderDescribe(result: DescribeResult): string {
  return terminalSafe(describeText(result));
}

function describeText(result: DescribeResult): string {
  if (!isServerDescription(result)) {
    const lines = [`${result.server} / ${result.name}${result.title ? ` (${result.title})` : ''}`];
    if (result.description) lines.push('', result.description);
    lines.push('', `arguments: ${result.arguments}`);
    if (result.structuredContent) lines.push(`structuredContent: ${result.structuredContent}`);
    if (result.returns) lines.push(`returns ${result.returns}`);
    if (result.annotations) lines.push(`annotations: ${JSON.stringify(result.annotations)}`);
    if (result.taskSupport) lines.push(`runs as a task (${result.taskSupport})`);
    if (result.ui) lines.push(`MCP App: ${result.ui} (shown by an MCP Apps host; berry-mcp prints the text)`);
    if (result.inputSchema) lines.push('', 'Input schema:', JSON.stringify(result.inputSchema, null, 2));
    if (result.outputSchema) lines.push('', 'Output schema:', JSON.stringify(result.outputSchema, null, 2));
    return lines.join('\n');
  }
  const info = result.serverInfo;
  const lines = [
    `${result.server}: ${info ? `${info.name} ${info.version}` : 'unknown server'}${result.protocolVersion ? ` (protocol ${result.protocolVersion})` : ''}`,
  ];
  if (result.instructions) lines.push('', 'Instructions:', indentLines(result.instructions, '  '));
  const sections: [string, Readonly<Record<string, string>>][] = [
    ['Tools', result.tools],
    ['Resources', result.resources],
    ['Resource templates', result.resourceTemplates],
    ['Prompts', result.prompts],
  ];
  for (const [title, entries] of sections) {
    const names = Object.keys(entries);
    if (names.length === 0 && title !== 'Tools') continue;
    lines.push('', `${title} (${names.length}):`);
    for (const name of names) lines.push(`  ${name}${title === 'Tools' || title === 'Prompts' ? '' : ' '}${entries[name]}`);
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
    if (block.type === 'text') blocks.push({ text: terminalSafe(block.text) });
    else if (block.type === 'image') blocks.push({ image: { data: block.data, mimeType: block.mimeType } });
    else blocks.push({ text: terminalSafe(JSON.stringify(block, null, 2)) });
  }
  if (result.structuredContent !== undefined && !repeatsContent(result)) {
    blocks.push({ text: terminalSafe(JSON.stringify(result.structuredContent, null, 2)) });
  }
  return blocks;
}

/** structuredContent adds nothing when a text block is the same JSON or it only carries the content's images again. */
function repeatsContent(result: CallResult): boolean {
  const structured = result.structuredContent;
  const content = result.content ?? [];
  const serialized = JSON.stringify(structured);
  return content.some((block) => {
    if (block.type === 'image' || block.type === 'audio') return block.data.length > 0 && serialized.includes(block.data);
    if (block.type !== 'text') return false;
    try {
      return isDeepStrictEqual(JSON.parse(block.text), structured);
    } catch {
      return false;
    }
  });
}

function indentLines(text: string, indent: string): string {
  return text
    .split('\n')
    .map((line) => indent + line)
    .join('\n');
}
