import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { berry } from '../support/berry-cli.js';
import { FIXTURES_DIR, PROJECT_ROOT } from '../support/paths.js';
import { runProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

describe('the berry-mcp launcher (bin/berry-mcp)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;

  before(() => {
    tmp = tempDir();
  });
  after(() => tmp.cleanup());

  it('works through the relative symlink npm makes in node_modules/.bin', async () => {
    const modules = join(tmp.dir, 'node_modules');
    mkdirSync(join(modules, '.bin'), { recursive: true });
    symlinkSync(PROJECT_ROOT, join(modules, 'berry-mcp'));
    symlinkSync('../berry-mcp/bin/berry-mcp', join(modules, '.bin', 'berry-mcp'));
    const result = await runProcess(join(modules, '.bin', 'berry-mcp'), ['--version'], { cwd: tmp.dir });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'berry-mcp 0.1.0\n');
  });

  it('starts run with --no-node-snapshot itself: one Node process, no re-execution', async () => {
    const log = join(tmp.dir, 'run.log');
    const env = { NODE_OPTIONS: `--import=${join(FIXTURES_DIR, 'import-log.mjs')}`, BERRY_IMPORT_LOG: log, HOME: tmp.dir };
    const result = await berry(['run', '-'], { cwd: tmp.dir, env, input: 'text(1)' });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '1\n');
    const binLoads = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.endsWith('dist/src/bin.js'));
    assert.equal(binLoads.length, 1, 'bin.js loaded by one process only');
    // The control: started as `node dist/src/bin.js`, the bin re-executes Node, and the log shows two.
    const again = join(tmp.dir, 'again.log');
    const node = await runProcess(process.execPath, [join(PROJECT_ROOT, 'dist/src/bin.js'), 'run', '-'], {
      cwd: tmp.dir,
      env: { ...env, BERRY_IMPORT_LOG: again },
      input: 'text(1)',
    });
    assert.equal(node.code, 0, node.stderr);
    assert.equal(
      readFileSync(again, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith('dist/src/bin.js')).length,
      2,
    );
  });
});
