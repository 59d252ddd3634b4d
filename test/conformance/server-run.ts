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
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, serveHttp } from '../support/berry-serve.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { ensureNode24, runSuite } from './node24.js';
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

async function runScenario(url: string, revision: string, scenario: string, outDir: string): Promise<Outcome> {
  const started = Date.now();
  const { code, plain, counts } = await runSuite([
    'server',
    '--url',
    url,
    '--scenario',
    scenario,
    '--spec-version',
    revision,
    '--expected-failures',
    EXPECTED,
    '-o',
    outDir,
  ]);
  // The suite judges with the baseline: exit 0 means no unexpected failure and no stale entry.
  return {
    revision,
    scenario,
    passed: code === 0 && counts !== undefined,
    summary: counts ? `${counts.passed}/${counts.total} checks, ${counts.failed} failed, ${counts.warnings} warnings` : `exit ${code}, no summary`,
    lines: plain
      .split('\n')
      .filter((l) => /FAIL|WARN|expected|stale|unexpected/i.test(l))
      .slice(0, 12),
    ms: Date.now() - started,
  };
}

async function main(): Promise<number> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -p tsconfig.json)`);
  ensureNode24();
  const dir = mkdtempSync(join(tmpdir(), 'berry-conformance-server-'));
  const token = randomBytes(24).toString('base64url');
  // An empty mcp.json: the suite tests the protocol, not the servers behind run.
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: {} }));
  const serve = await serveHttp(['--config', 'mcp.json'], { cwd: dir, env: { BERRY_SERVE_TOKEN: token } });
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
    await serve.close();
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
