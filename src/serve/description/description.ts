/**
 * The `run` tool's description: the script API, a worked example, what the sandbox lacks and the
 * limits, then the configured servers, all within the 2,048 characters Claude Code keeps of a tool
 * description (it cuts the rest). `--signatures` adds every tool's TypeScript signature after it,
 * for clients that show a description whole.
 */
import { isBerryError } from '../../common/errors.js';
import type { LoadedConfig } from '../../config/index.js';
import type { Host } from '../../host.js';
import { fitServers } from './description-servers.js';
import { signaturesSection } from './description-signatures.js';
import { outputBudgetText } from '../output-budget.js';
import { serverEntries, type ServerEntry } from '../server-entries.js';

export interface DescriptionLimits {
  readonly defaultTimeoutSeconds: number;
  readonly maxTimeoutSeconds: number;
  readonly memoryLimitMb: number;
  readonly outputLimitBytes: number;
}

export interface DescriptionOptions {
  /** Append every tool's TypeScript signature (the description then exceeds 2,048 characters). @default false */
  readonly signatures?: boolean;
  readonly signal?: AbortSignal;
}

/** What Claude Code keeps of a tool description; the description without signatures never exceeds it. */
export const DESCRIPTION_MAX = 2048;

/** The servers of `mcp.json` as a stable key: changes when one is added, removed, enabled, disabled or rewritten. */
export function serverSetKey(loaded: LoadedConfig): string {
  return JSON.stringify([loaded.path, loaded.servers.map((s) => [s.name, s.status, s.status === 'ok' ? s.config.display : ''])]);
}

/** The description a client sees in tools/list for `loaded` (or for a config that could not be read). */
export async function describeRun(host: Host, loaded: LoadedConfig | Error, limits: DescriptionLimits, options: DescriptionOptions = {}): Promise<string> {
  if (loaded instanceof Error) {
    const why = `cannot be read: ${isBerryError(loaded) ? loaded.code : 'error'}; every call will fail until it is fixed`;
    return runDescription([{ name: '(mcp.json)', status: why }], limits);
  }
  const entries = await serverEntries(host, loaded, options.signal);
  const text = runDescription(entries, limits);
  if (options.signatures !== true) return text;
  return `${text}\n${await signaturesSection(host, entries, options.signal)}`;
}

/** The description for `servers`: the fixed text, then the servers fitted into what is left of DESCRIPTION_MAX. */
export function runDescription(servers: readonly ServerEntry[], limits: DescriptionLimits): string {
  const fixed = fixedText(limits);
  return `${fixed}\n${fitServers(servers, DESCRIPTION_MAX - fixed.length - 1)}`;
}

function fixedText(limits: DescriptionLimits): string {
  const timeout =
    limits.defaultTimeoutSeconds === limits.maxTimeoutSeconds
      ? `${limits.maxTimeoutSeconds} s`
      : `${limits.defaultTimeoutSeconds} s (at most ${limits.maxTimeoutSeconds})`;
  return `Runs \`code\` (an async function body, JavaScript or TypeScript) in a sandbox with these async functions; \`return\` a small JSON value.
- tools.mcp_search({ query, server?, limit? }) → { tools: [{ server, name, description, signature }] }
- tools.mcp_list({ server? }) → { servers: [{ name, status, tools: [{ name, description }] }] }
- tools.mcp_describe({ server, tool }) → { arguments, structuredContent? } as TypeScript: check before a first call
- tools.mcp_describe({ server }) → { instructions?, tools, resources, resourceTemplates, prompts }
- tools.mcp_call({ server, tool, arguments? }) → { content: [{ type: "text", text }…], structuredContent?, isError? }
- tools.mcp_read({ server, uri }) → { contents: [{ uri, text | blob }] }
- tools.mcp_prompt({ server, name, arguments? }) → { messages: [{ role, content }] }
text(value), image({ data, mimeType }), console.log add to the answer. store(key, value), load(key) keep JSON for later runs; servers keep their state too (files, memory graph).
Example: const rs = await Promise.all(["a", "b"].map((q) => tools.mcp_call({ server: "docs", tool: "find", arguments: { q } })));
return rs.map((r) => r.content[0]?.text);
No import/require, fetch, file system or network. A failed call throws an Error with a stable \`code\`; a tool's own failure resolves with isError: true.
Limits: ${timeout} (timeoutSeconds), ${limits.memoryLimitMb} MB; output ${outputBudgetText(limits.outputLimitBytes)} and as much for the return value.
Servers (tool count): tool names as room allows; mcp_search finds any tool`;
}

/** `text` cut to at most `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
