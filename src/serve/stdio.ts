import type { Readable, Writable } from 'node:stream';
import { serveStdio as serveStdioEntry, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Server } from '@modelcontextprotocol/server';
import { loneClient } from './queue.js';
import type { ModernScope, RunService } from './server.js';

export interface StdioServing {
  /** Resolves when the connection ends (the client closed stdin, or close()). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the one client on `stdin`/`stdout`, in the era its first message chose: a 2025 session
 * (initialize), or 2026-07-28 requests that each carry their `_meta` (server/discover first).
 */
export function serveStdio(service: RunService, stdin: Readable, stdout: Writable, onWarning?: (message: string) => void): StdioServing {
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const transport = new StdioServerTransport(stdin, stdout);
  // The connection is the one client, in either era: alone, it may use every slot.
  const client = loneClient(service.queue.limit);
  let pinned: Server | undefined;
  const scope: ModernScope = {
    client,
    // Over stdio the entry routes the instance's own list_changed to the connection's subscriptions/listen streams.
    toolsChanged: () => void pinned?.sendToolListChanged().catch(() => {}),
  };
  const handle = serveStdioEntry(
    (ctx) => {
      if (ctx.era === 'legacy') return service.legacyServer(client);
      pinned = service.modernServer(scope);
      return pinned;
    },
    { transport, legacy: 'serve', ...(onWarning ? { onerror: (error: Error) => onWarning(`client connection: ${error.message}`) } : {}) },
  );
  const closeTransport = transport.onclose;
  transport.onclose = () => {
    closeTransport?.();
    ended();
  };
  return {
    closed,
    close: async () => {
      await handle.close();
      ended();
    },
  };
}
