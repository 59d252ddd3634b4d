/**
 * Lint and format are part of `npm test` (its `lint` script: Biome over the whole tree, warnings
 * included). This test proves that the check bites: each kind of violation, planted in a file of a
 * scratch folder, fails Biome run as `npm run lint` runs it, with the project's own biome.json.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './support/paths.js';
import { tempDir } from './support/temp-dir.js';

const BIOME = join(PROJECT_ROOT, 'node_modules', '.bin', 'biome');
const scripts = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const LINT = scripts['lint']!.split(' ');

/** Biome as the lint script runs it, on one planted file: its exit status and what it printed. */
function check(source: string): { status: number | null; output: string } {
  const tmp = tempDir('berry-lint-');
  try {
    writeFileSync(join(tmp.dir, 'planted.ts'), source);
    // The lint script's own arguments, on the scratch folder, with the project's rules.
    const args = [...LINT.slice(1, -1), '--colors=off', '--vcs-enabled=false', `--config-path=${join(PROJECT_ROOT, 'biome.json')}`, tmp.dir];
    const run = spawnSync(BIOME, args, { encoding: 'utf8' });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    tmp.cleanup();
  }
}

describe('lint and format: one kept tool (Biome), enforced by npm test', () => {
  it('npm test runs the lint script, which checks the whole tree and fails on warnings too', () => {
    assert.match(scripts['test']!, /npm run -s lint && mocha/);
    assert.deepEqual(LINT, ['biome', 'ci', '--error-on-warnings', '.']);
  });

  it('passes a file written in the house style', () => {
    const { status, output } = check("import { readFileSync } from 'node:fs';\n\nexport const text = (path: string): string => readFileSync(path, 'utf8');\n");
    assert.equal(status, 0, output);
  });

  it('fails a file that is not formatted (double quotes, no semicolon)', () => {
    const { status, output } = check('export const text = "double"\n');
    assert.equal(status, 1, output);
    assert.match(output, /planted\.ts format/);
  });

  it('fails a lint error (a debugger statement)', () => {
    const { status, output } = check('export function f(): void {\n  debugger;\n}\n');
    assert.equal(status, 1, output);
    assert.match(output, /lint\/suspicious\/noDebugger/);
  });

  it('fails a lint warning too (an unused import)', () => {
    const { status, output } = check("import { readFileSync } from 'node:fs';\n\nexport const n = 1;\n");
    assert.equal(status, 1, output);
    assert.match(output, /lint\/correctness\/noUnusedImports/);
  });
});
