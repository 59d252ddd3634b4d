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
  return `Runs \`code\` (an async function body) in a sandbox where the servers below are async functions; \`return\` a small JSON value.
- tools.mcp_list({ server? }) → { servers: [{ name, status, tools: [{ name, description }] }] }
- tools.mcp_describe({ server, tool? }) → argument types as TypeScript: check them before a first call
- tools.mcp_call({ server, tool, arguments }) → { content: [{ type: "text", text }…], structuredContent?, isError? }
- tools.mcp_read({ server, uri }), tools.mcp_prompt({ server, name }); text(v), image({ data, mimeType }), console.log add to the answer
Example:
const { arguments: a } = await tools.mcp_describe({ server: "docs", tool: "search" }); // a: "{ query: string }"
const rs = await Promise.all(["x", "y"].map((query) => tools.mcp_call({ server: "docs", tool: "search", arguments: { query } })));
return rs.map((r) => r.content[0]?.text.slice(0, 100));
No import/require, fetch, file system or network (only tools.* reach out); JavaScript, not TypeScript.
A failed call throws an Error with a stable \`code\` (MCP_UNKNOWN_TOOL…); a tool's own failure resolves with isError: true.
Limits: ${timeout} (timeoutSeconds), ${limits.memoryLimitMb} MB; output ${outputBudgetText(limits.outputLimitBytes)} and as much for the return value: filter in the script.
Servers (tool count): tool names as room allows; tools.mcp_list has all`;
}

/** `text` cut to at most `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
