import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { faultServerPath } from '../fixtures/servers.js';

/** A fresh temp dir, removed by the returned cleanup. */
export function tempDir(prefix = 'berry-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A stdio entry running the fault fixture with the given flags. */
export function faultEntry(flags: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [faultServerPath, ...flags], ...extra };
}

/** Parses the JSON text of a whoami result. */
export function whoami(result: { content?: unknown[] }): { pid: number; ppid: number; cwd: string; env: Record<string, string | null> } {
  const block = (result.content as { type: string; text: string }[])[0]!;
  return JSON.parse(block.text);
}

/** Polls `predicate` until it holds or `timeoutMs` passes. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A loopback port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
