// Where things are: the project root, the fixture scripts and the reference servers.
//
// Compiled by the project's tsc to dist/test/support/paths.js; the .mjs fixtures are not
// compiled and are always run from the source folder (FIXTURES_DIR).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The project root (the folder holding package.json). */
export const PROJECT_ROOT: string = here.endsWith(path.join('dist', 'test', 'support'))
  ? path.resolve(here, '..', '..', '..') // compiled: dist/test/support/paths.js
  : path.resolve(here, '..', '..'); // run from source: test/support/paths.ts

/** The source folder test/fixtures, where the .mjs fixtures live. */
export const FIXTURES_DIR: string = path.join(PROJECT_ROOT, 'test', 'fixtures');

/** Absolute paths of the fixture scripts. */
export const faultServerPath: string = path.join(FIXTURES_DIR, 'fault-server.mjs');
export const httpServerPath: string = path.join(FIXTURES_DIR, 'http-server.mjs');
/** Absolute path of the broken endpoint (every MCP request fails one way: --mode=…). */
export const brokenHttpPath: string = path.join(FIXTURES_DIR, 'broken-http.mjs');
/** Absolute path of the sandbox spy (looks at its env, home, network, pids; starts a setsid grandchild). */
export const sandboxSpyPath: string = path.join(FIXTURES_DIR, 'sandbox-spy.mjs');
/** Absolute path of the echo fixture (hands its input back in results, resources and prompts). */
export const echoServerPath: string = path.join(FIXTURES_DIR, 'echo-server.mjs');
export const everythingHttpPath: string = path.join(FIXTURES_DIR, 'everything-http.mjs');
export const typedServerPath: string = path.join(FIXTURES_DIR, 'typed-server.mjs');
/** The v2 SDK server of both eras (`--modern-only`: 2026-07-28 only; `--http`: Streamable HTTP). */
export const v2ServerPath: string = path.join(FIXTURES_DIR, 'v2-server.mjs');
/** A hostile server's texts: progress, elicitations, result keys and logs carrying what it finds in its env (both eras). */
export const hostileTextPath: string = path.join(FIXTURES_DIR, 'hostile-text.mjs');
/** Records the trace context each request carries (telemetry tests). */
export const traceServerPath: string = path.join(FIXTURES_DIR, 'trace-server.mjs');
/** A server whose tools are given: a JSON file's (`--tools-file=`) and/or N synthetic ones (`--synthetic=N`). */
export const catalogServerPath: string = path.join(FIXTURES_DIR, 'catalog-server.mjs');
/** Counts calls in a shared event log and names its replica ($BERRY_REPLICA): the fleet tests' downstream server. */
export const tallyServerPath: string = path.join(FIXTURES_DIR, 'tally-server.mjs');

const require = createRequire(import.meta.url);

/** Absolute path of a package's bin script (its first `bin` entry), found through its package.json. */
function binOf(pkg: string): string {
  const pkgJson = require.resolve(`${pkg}/package.json`);
  const meta = JSON.parse(fs.readFileSync(pkgJson, 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof meta.bin === 'string' ? meta.bin : meta.bin ? Object.values(meta.bin)[0] : undefined;
  if (!bin) throw new Error(`${pkg} declares no bin`);
  return path.resolve(path.dirname(pkgJson), bin);
}

/** dist/index.js of @modelcontextprotocol/server-everything (stdio by default; `streamableHttp` arg for HTTP). */
export const everythingPath: string = binOf('@modelcontextprotocol/server-everything');
/** dist/index.js of @modelcontextprotocol/server-filesystem (args: allowed directories). */
export const filesystemPath: string = binOf('@modelcontextprotocol/server-filesystem');
/** dist/index.js of @modelcontextprotocol/server-memory (env MEMORY_FILE_PATH). */
export const memoryPath: string = binOf('@modelcontextprotocol/server-memory');
/** Absolute path of the OAuth fixture (authorization server + protected MCP server). */
export const oauthServerPath: string = path.join(FIXTURES_DIR, 'oauth-server.mjs');
/**
 * dist/index.js of @modelcontextprotocol/server-system-monitor, an MCP Apps server (`--stdio` for
 * stdio): its `poll-system-stats` is app-only. Resolved on first use, so that only its suites need it.
 */
export function systemMonitorPath(): string {
  // Its exports map hides package.json; its bin, dist/index.js, sits beside the main entry.
  return path.join(path.dirname(require.resolve('@modelcontextprotocol/server-system-monitor')), 'index.js');
}
