/** The configured servers as the `run` description names them: tool names, or why there are none. */
import type { LoadedConfig } from '../config/index.js';
import type { Host } from '../host.js';

/** One configured server as the description names it. */
export type ServerEntry =
  /** Connected (or answered from a saved catalog): its tool names, in the server's order. */
  | { readonly name: string; readonly tools: readonly string[] }
  /** No tools to show, and why (`disabled in mcp.json`, `unavailable: MCP_CONNECT_FAILED`). */
  | { readonly name: string; readonly status: string };

/** How long tools/list waits for one server's tool names (or signatures) before naming it without them. */
export const CATALOG_WAIT_MS = 5000;

/** `signal`, also aborted after CATALOG_WAIT_MS; `wait` tells the two apart. */
export function catalogWait(signal?: AbortSignal): { signal: AbortSignal; wait: AbortSignal } {
  const wait = AbortSignal.timeout(CATALOG_WAIT_MS);
  return { signal: signal ? AbortSignal.any([signal, wait]) : wait, wait };
}

/** Each configured server with its tool names (connecting if needed, bounded in time); never throws for one server. */
export async function serverEntries(host: Host, loaded: LoadedConfig, signal?: AbortSignal): Promise<ServerEntry[]> {
  return Promise.all(
    loaded.servers.map(async (slot): Promise<ServerEntry> => {
      if (slot.status === 'disabled') return { name: slot.name, status: 'disabled in mcp.json' };
      if (slot.status === 'error') return { name: slot.name, status: `unusable: ${slot.error.code}` };
      const { signal: bounded, wait } = catalogWait(signal);
      try {
        const listed = await host.list({ server: slot.name }, { signal: bounded });
        const status = listed.servers[0];
        if (status?.status !== 'connected') return { name: slot.name, status: status?.status === 'error' ? `unavailable: ${status.error.code}` : 'disabled' };
        return { name: slot.name, tools: status.tools.map((t) => t.name) };
      } catch {
        return { name: slot.name, status: wait.aborted ? `not answering yet (${slot.config.kind})` : `unavailable (${slot.config.kind})` };
      }
    }),
  );
}
