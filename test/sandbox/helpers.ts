/**
 * Shared by the sandbox suites: calling the spy, finding processes by a marker, a loopback HTTP
 * server, and a LocalMachine whose home is a scratch directory (so tests never touch the real one).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { McpHost } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { LocalMachine } from '../../src/remote/machine/index.js';
import { FIXTURES_DIR, PROJECT_ROOT, sandboxSpyPath } from '../support/paths.js';
import { processTable } from '../ssh/proc.js';

/** The host uid (and gid) confined servers run as when berry-mcp is root. */
export const CONFINED_ID = 65534;

/**
 * A scratch directory under the checkout's .cache (a read-only system mount inside a sandbox, not
 * the hidden /tmp). Mode 0755: as root, a confined server runs as uid 65534 and must be able to
 * reach the mount points below it, as it reaches /root (a fresh directory) in real use.
 */
export function scratchDir(prefix: string): string {
  mkdirSync(join(PROJECT_ROOT, '.cache'), { recursive: true });
  const dir = mkdtempSync(join(PROJECT_ROOT, '.cache', prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/** As root: makes `path` the confined uid's, as the docs tell a root user to do for an rw mount. */
export function giveToConfined(path: string): void {
  if (process.getuid?.() === 0) chownSync(path, CONFINED_ID, CONFINED_ID);
}

/** bubblewrap is installed (CI installs it; elsewhere the suites skip). */
export function hasBwrap(): boolean {
  return spawnSync('bwrap', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * What the test servers need besides the system directories: the fixtures, node_modules and the
 * Node binary, which CI's copies keep under /tmp (hidden inside a sandbox).
 */
// Real paths: a bind onto a symlink (this checkout's node_modules may be one) cannot be mounted.
export const TEST_BINDS: readonly string[] = [FIXTURES_DIR, join(PROJECT_ROOT, 'node_modules'), dirname(process.execPath)].map((path) => realpathSync(path));

/** `sandbox` with TEST_BINDS in front of its own roBinds. */
export function withTestBinds(sandbox: Record<string, unknown>): Record<string, unknown> {
  return { ...sandbox, roBinds: [...TEST_BINDS, ...((sandbox.roBinds as string[] | undefined) ?? [])] };
}

/** A stdio entry running the spy, confined by `sandbox` (with TEST_BINDS) unless it is undefined. */
export function spyEntry(sandbox: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [sandboxSpyPath], ...(sandbox ? { sandbox: withTestBinds(sandbox) } : {}), ...extra };
}

/** A local machine with another home directory. */
export class ScratchHomeMachine extends LocalMachine {
  readonly #home: string;

  constructor(home: string) {
    super();
    this.#home = home;
  }

  override async homeDir(): Promise<string> {
    return this.#home;
  }
}

/** Calls a spy tool and parses its JSON answer. */
export async function spy<T = Record<string, unknown>>(host: McpHost, server: string, tool: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await host.call({ server, tool, arguments: args });
  const block = (result.content as Array<{ type: string; text: string }>)[0]!;
  return JSON.parse(block.text) as T;
}

/** The rejection of `promise` as a BerryError with `code`. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<Error & { code: string }> {
  const error = await promise.then(
    (value) => assert.fail(`expected ${code}, got ${JSON.stringify(value).slice(0, 300)}`),
    (caught: unknown) => caught as Error,
  );
  assert.ok(isBerryError(error), `not a BerryError: ${String(error)}`);
  assert.equal(error.code, code, error.message);
  return error;
}

/** Host pids whose command line contains `marker`. */
export function pidsWithMarker(marker: string): number[] {
  return processTable()
    .filter((row) => row.cmdline.includes(marker))
    .map((row) => row.pid);
}

/** An HTTP server on 127.0.0.1 that answers every request with `pong`. */
export async function startPong(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_request, response) => response.end('pong'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
