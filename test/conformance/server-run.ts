/**
 * `npm run conformance:server`: the suite's server role against `berry-mcp serve --http`, for both
 * protocol revisions serve speaks, one scenario at a time: 2025-11-25's protocol-level scenarios
 * and 2026-07-28's stateless ones (the rest of each revision's set needs the suite's fixture
 * tools, prompts and resources, which a code-mode server with one tool does not have).
 *
 * serve requires a bearer token and the suite sends no headers: the suite talks to a loopback
 * proxy (server-proxy.ts) that adds it. The suite runs on Node 24 (node24.ts). Green only when
 * every scenario passes, apart from the checks server-expected-failures.yaml names (checks the
 * suite itself reports "Not testable" without its fixture tools), and no such check passes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../support/berry-serve.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { ensureNode24, NODE24, SUITE } from './node24.js';
import { startTokenProxy } from './server-proxy.js';

const EXPECTED = join(PROJECT_ROOT, 'test', 'conformance', 'server-expected-failures.yaml');

/** The scenarios run per revision (issue 21). */
export const SERVER_SCENARIOS: Readonly<Record<string, readonly string[]>> = {
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'],
  '2026-07-28': ['server-stateless', 'caching', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'],
};

interface Outcome {
  readonly revision: string;
  readonly scenario: string;
  readonly passed: boolean;
  readonly summary: string;
  readonly lines: readonly string[];
  readonly ms: number;
}

/** `berry-mcp serve --http 127.0.0.1:0` on an empty mcp.json, resolved with its URL once it listens. */
async function startServe(dir: string, token: string): Promise<{ url: string; child: ChildProcess }> {
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: {} }));
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN, 'serve', '--http', '127.0.0.1:0', '--config', 'mcp.json'], {
    cwd: dir,
    env: { ...process.env, BERRY_SERVE_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --http did not start:\n${stderr}`)), 20_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const match = /listening on (\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve --http exited (${code}):\n${stderr}`)));
  });
  return { url, child };
}

function runScenario(url: string, revision: string, scenario: string, outDir: string): Promise<Outcome> {
  const started = Date.now();
  const args = [SUITE, 'server', '--url', url, '--scenario', scenario, '--spec-version', revision, '--expected-failures', EXPECTED, '-o', outDir];
  const child = spawn(NODE24, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
      const counts = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(plain);
      // The suite judges with the baseline: exit 0 means no unexpected failure and no stale entry.
      resolve({
        revision,
        scenario,
        passed: code === 0 && counts !== null,
        summary: counts ? `${counts[1]}/${counts[2]} checks, ${counts[3]} failed, ${counts[4]} warnings` : `exit ${code}, no summary`,
        lines: plain.split('\n').filter((l) => /FAIL|WARN|expected|stale|unexpected/i.test(l)).slice(0, 12),
        ms: Date.now() - started,
      });
    });
  });
}

async function main(): Promise<number> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -p tsconfig.json)`);
  ensureNode24();
  const dir = mkdtempSync(join(tmpdir(), 'berry-conformance-server-'));
  const token = randomBytes(24).toString('base64url');
  const serve = await startServe(dir, token);
  const proxy = await startTokenProxy(serve.url, token);
  const outcomes: Outcome[] = [];
  try {
    for (const [revision, scenarios] of Object.entries(SERVER_SCENARIOS)) {
      process.stdout.write(`${revision} (serve at ${serve.url}, the suite through the token proxy ${proxy.url})\n`);
      for (const scenario of scenarios) {
        const outcome = await runScenario(proxy.url, revision, scenario, join(dir, 'results'));
        outcomes.push(outcome);
        process.stdout.write(`  ${(outcome.passed ? 'pass' : 'FAIL').padEnd(5)} ${scenario} (${outcome.summary}, ${(outcome.ms / 1000).toFixed(1)} s)\n`);
        if (!outcome.passed || process.env['VERBOSE']) for (const line of outcome.lines) process.stdout.write(`          ${line.trim()}\n`);
      }
    }
  } finally {
    await proxy.close();
    serve.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  const failed = outcomes.filter((o) => !o.passed);
  process.stdout.write(`passed ${outcomes.length - failed.length}/${outcomes.length} server scenarios\n`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`conformance:server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
