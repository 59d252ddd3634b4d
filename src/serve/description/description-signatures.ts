/**
 * `serve --signatures`: every tool's TypeScript call signature, as `mcp_describe({ server })` gives
 * it (the typings generator's types), for clients that show a tool description whole. Bounded all
 * the same: a server that will not describe itself in time keeps its short line, and past
 * SIGNATURES_MAX_CHARS the rest of the tools are counted instead of shown.
 */
import type { Host } from '../../host.js';
import { catalogWait, type ServerEntry } from '../server-entries.js';

/** The most the signatures section may add to the description. */
export const SIGNATURES_MAX_CHARS = 64 * 1024;

/** `Signatures (…):` then, per server, its tools as `name(args) => structuredContent — summary`. */
export async function signaturesSection(host: Host, servers: readonly ServerEntry[], signal?: AbortSignal): Promise<string> {
  const described = await Promise.all(servers.map((server) => ('tools' in server ? signaturesOf(host, server.name, signal) : undefined)));
  const lines = ['Signatures (arguments => structuredContent — summary), as tools.mcp_describe({ server }) gives them:'];
  let used = lines[0]!.length;
  let left = 0;
  servers.forEach((server, i) => {
    const tools = described[i];
    if (tools === undefined) return;
    const block = [`${server.name}:`];
    for (const [name, signature] of tools) {
      const line = `  ${name}${signature}`;
      if (used + blockLength(block) + line.length + 1 > SIGNATURES_MAX_CHARS) left++;
      else block.push(line);
    }
    used += blockLength(block) + 1;
    lines.push(...block);
  });
  if (left > 0) lines.push(`(${left} more tools' signatures not shown: tools.mcp_describe({ server }) gives them)`);
  return lines.join('\n');
}

/** A server's tools as [name, signature] in its order, or undefined when it cannot say in time. */
async function signaturesOf(host: Host, server: string, signal: AbortSignal | undefined): Promise<[string, string][] | undefined> {
  try {
    const description = await host.describe({ server }, { signal: catalogWait(signal).signal });
    return 'tools' in description && typeof description.tools === 'object' ? Object.entries(description.tools) : undefined;
  } catch {
    return undefined;
  }
}

function blockLength(block: readonly string[]): number {
  return block.reduce((sum, line) => sum + line.length + 1, 0);
}
