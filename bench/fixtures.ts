/**
 * What the sections share: temp dirs with mcp.json files, the raw SDK baselines (a plain
 * `Client` on its own server process), and the echo call used everywhere.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { everythingPath, faultServerPath } from '../test/support/paths.js';
import { writeConfig } from '../test/support/write-config.js';
import { SETTLED_MS } from '../src/remote/machine/unchanged-file.js';

export { everythingPath, faultServerPath, writeConfig };

/** The node running the bench: servers are started with it, never through npx. */
export const NODE = process.execPath;

export const ECHO = { server: 'everything', tool: 'echo', arguments: { message: 'bench' } } as const;

export function everythingEntry(): { command: string; args: string[] } {
  return { command: NODE, args: [everythingPath] };
}

export function faultEntry(extraArgs: string[] = []): { command: string; args: string[] } {
  return { command: NODE, args: [faultServerPath, ...extraArgs] };
}

/**
 * Waits until the file at `path` has settled: the host proves a settled mcp.json unchanged with one
 * stat, and reads a younger one in full on every operation (src/remote/machine/unchanged-file.ts). A
 * user's mcp.json is older than that; a bench that writes one and measures at once would not be.
 */
export async function settled(path: string): Promise<void> {
  const wait = statSync(path).ctimeMs + SETTLED_MS + 50 - Date.now();
  if (wait > 0) await sleep(wait);
}

/** A temp dir removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `berry-bench-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RawClient {
  readonly client: Client;
  close(): Promise<void>;
}

/** A raw SDK client on its own stdio server process, connected; stderr drained as berry-mcp does. */
export async function rawStdio(command: string, args: readonly string[]): Promise<RawClient> {
  const transport = new StdioClientTransport({ command, args: [...args], stderr: 'pipe' });
  (transport.stderr as NodeJS.ReadableStream | null)?.resume();
  const client = new Client({ name: 'bench-raw', version: '0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** A raw SDK client over Streamable HTTP, connected. */
export async function rawHttp(url: string): Promise<RawClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'bench-raw', version: '0' });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

export function rawEcho(raw: RawClient): Promise<unknown> {
  return raw.client.callTool({ name: ECHO.tool, arguments: ECHO.arguments });
}
