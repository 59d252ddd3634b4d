import type { LoadedConfig } from '../config/index.js';
import type { Host } from '../host.js';

/** One configured server as the `run` description names it. */
export interface ServerLine {
  readonly name: string;
  /** A one-line summary: its tools when reachable, else why not. */
  readonly summary: string;
}

export interface DescriptionLimits {
  readonly defaultTimeoutSeconds: number;
  readonly maxTimeoutSeconds: number;
  readonly memoryLimitMb: number;
  readonly outputLimitBytes: number;
}

/** The most a server's line may take (name and summary). */
export const SERVER_LINE_MAX = 200;
/** How long tools/list waits for one server's tool names before naming it without them. */
const CATALOG_WAIT_MS = 5000;

/** The servers of `mcp.json` as a stable key: changes when one is added, removed, enabled, disabled or rewritten. */
export function serverSetKey(loaded: LoadedConfig): string {
  return JSON.stringify([loaded.path, loaded.servers.map((s) => [s.name, s.status, s.status === 'ok' ? s.config.display : ''])]);
}

/** Each configured server with its tool names (connecting if needed, bounded in time); never throws for one server. */
export async function serverLines(host: Host, loaded: LoadedConfig, signal?: AbortSignal): Promise<ServerLine[]> {
  return Promise.all(
    loaded.servers.map(async (slot): Promise<ServerLine> => {
      if (slot.status === 'disabled') return { name: slot.name, summary: 'disabled in mcp.json' };
      if (slot.status === 'error') return { name: slot.name, summary: `unusable: ${slot.error.code}` };
      const wait = AbortSignal.timeout(CATALOG_WAIT_MS);
      try {
        const listed = await host.list({ server: slot.name }, { signal: signal ? AbortSignal.any([signal, wait]) : wait });
        const status = listed.servers[0];
        if (status?.status !== 'connected') return { name: slot.name, summary: status?.status === 'error' ? `unavailable: ${status.error.code}` : 'disabled' };
        return { name: slot.name, summary: toolNames(slot.name, status.tools.map((t) => t.name)) };
      } catch {
        return { name: slot.name, summary: wait.aborted ? `not answering yet (${slot.config.kind})` : `unavailable (${slot.config.kind})` };
      }
    }),
  );
}

/** The `run` tool's description: the script API in a few hundred tokens, then one line per server. */
export function runDescription(servers: readonly ServerLine[], limits: DescriptionLimits): string {
  const lines = servers.map((s) => clip(`- ${s.name}: ${s.summary}`, SERVER_LINE_MAX));
  return `Run JavaScript in a sandbox where the MCP servers below are async functions. The code is the body of an async function: use await, and \`return\` a value to get it back as JSON.
API:
- await tools.mcp_list({ server? }) → { servers: [{ name, status, tools: [{ name, description }] }] }
- await tools.mcp_describe({ server, tool? }) → a tool's argument types as TypeScript (without tool: every tool's signature, the resources and prompts)
- await tools.mcp_call({ server, tool, arguments }) → MCP result { content: [{ type: "text", text } | …], structuredContent?, isError? }
- await tools.mcp_read({ server, uri }) → { contents: [{ uri, text } | { uri, blob }] }; await tools.mcp_prompt({ server, name, arguments }) → { messages }
- text(value) adds a text block to the answer; image({ type: "image", data: base64, mimeType }) an image block; console.log/warn/error go to one final log block.
Call tools in parallel with Promise.all([...]). Only what you text() or return reaches you: filter and summarize big results inside the script.
Errors: a failed call throws an Error with a stable \`code\` (MCP_UNKNOWN_TOOL, MCP_INVALID_ARGUMENT, MCP_TIMEOUT, …); catch it with try/catch. A tool that fails on its own resolves with isError: true. A script error comes back with its line and column.
Limits: timeoutSeconds (default ${limits.defaultTimeoutSeconds}, at most ${limits.maxTimeoutSeconds}), ${limits.memoryLimitMb} MB memory, ${limits.outputLimitBytes} bytes of output.
Servers:
${lines.length > 0 ? lines.join('\n') : '(none configured: add servers to mcp.json)'}`;
}

/** `N tools: a, b, c, … (+K more)`, cut at a whole name so the server's line fits SERVER_LINE_MAX. */
function toolNames(server: string, names: readonly string[]): string {
  const head = `${names.length} tools: `;
  const room = SERVER_LINE_MAX - `- ${server}: `.length - head.length;
  let shown = '';
  let count = 0;
  for (const name of names) {
    const rest = names.length - count - 1;
    const next = `${shown === '' ? '' : `${shown}, `}${name}`;
    if (next.length + (rest > 0 ? ` … (+${rest} more)`.length : 0) > room) break;
    shown = next;
    count++;
  }
  return count === names.length ? `${head}${shown}` : `${head}${shown} … (+${names.length - count} more)`;
}

/** `text` cut to at most `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
