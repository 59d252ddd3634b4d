/**
 * The releases of @modelcontextprotocol/conformance that run.ts runs, and how each plans its runs:
 * - 0.2 (0.2.0-alpha.12, the `@modelcontextprotocol/conformance` devDependency): the client
 *   scenarios of its frozen requirement sets (`list --requirements REV`), each run at its set's
 *   revision (`--spec-version REV --force`);
 * - 0.1 (0.1.16, the last stable release, as the `@modelcontextprotocol/conformance-0.1` alias): its
 *   authorization scenarios (`list --client`, every `auth/…`), the 2025-03-26 back-compatibility
 *   ones among them; it has no requirement sets, and a scenario runs at its own revision.
 * BERRY_CONFORMANCE_SUITE_0_1 / _0_2 (a path to a suite's dist/index.js) run another copy.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/paths.js';
import { NODE24 } from './node24.js';

/** One run: a scenario of a set (a requirement set's revision, or a release's scenario group). */
export interface Planned {
  readonly set: string;
  readonly scenario: string;
  /** Not scored, with the reason the suite gives (`extension`, …). */
  readonly notScored?: string;
}

export interface Release {
  readonly name: string;
  /** The suite's dist/index.js. */
  readonly suite: string;
  /** scenario → reason: the extensions that may fail. */
  readonly expectedFile: string;
  readonly sets: readonly string[];
  plan(set: string): Planned[];
  /** The `client` arguments of one run, after `--command`. */
  scenarioArgs(planned: Planned): string[];
}

const suitePath = (env: string, pkg: string): string =>
  process.env[env] ?? join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');

function list(suite: string, args: readonly string[]): string {
  const result = spawnSync(NODE24, [suite, 'list', ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`conformance list ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
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
    if (section === 'client') planned.push({ set: revision, scenario: item[1]! });
    else if (section === 'not-scored' && item[2] === 'client') planned.push({ set: revision, scenario: item[1]!, notScored: reason });
  }
  return planned;
}

/** 0.1's `list --client`: `  - auth/x [2025-11-25]`, an extension tagged `[extension]`. */
export function parseClientList(set: string, listing: string, prefix: string): Planned[] {
  return [...listing.matchAll(/^\s+- (\S+) \[([^\]]*)\]\s*$/gm)]
    .filter((m) => m[1]!.startsWith(prefix))
    .map((m) => (m[2]!.split(',').includes('extension') ? { set, scenario: m[1]!, notScored: 'extension' } : { set, scenario: m[1]! }));
}

const current: Release = {
  name: '0.2',
  suite: suitePath('BERRY_CONFORMANCE_SUITE_0_2', 'conformance'),
  expectedFile: join(PROJECT_ROOT, 'test', 'conformance', 'expected-failures.json'),
  sets: ['2025-11-25', '2026-07-28'],
  plan(revision) {
    const planned = parseRequirementList(revision, list(this.suite, ['--requirements', revision]));
    if (!planned.some((p) => p.notScored === undefined)) throw new Error(`conformance list --requirements ${revision}: no client scenarios found`);
    return planned;
  },
  scenarioArgs: (p) => ['--scenario', p.scenario, '--spec-version', p.set, '--force'],
};

const stable: Release = {
  name: '0.1',
  suite: suitePath('BERRY_CONFORMANCE_SUITE_0_1', 'conformance-0.1'),
  expectedFile: join(PROJECT_ROOT, 'test', 'conformance', 'expected-failures-0.1.json'),
  sets: ['auth'],
  plan(set) {
    const planned = parseClientList(set, list(this.suite, ['--client']), 'auth/');
    if (planned.length === 0) throw new Error('conformance list --client: no auth/ scenarios found');
    return planned;
  },
  scenarioArgs: (p) => ['--scenario', p.scenario],
};

export const RELEASES: Readonly<Record<string, Release>> = { '0.2': current, '0.1': stable };
