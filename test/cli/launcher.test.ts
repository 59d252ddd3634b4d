import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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
    const launches = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('file://') && l.endsWith('dist/src/cli/launch.cjs'));
    assert.equal(launches.length, 1, 'launch.cjs loaded by one process only');
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

describe('which file the launcher starts', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
    mkdirSync(join(tmp.dir, 'bin'));
    mkdirSync(join(tmp.dir, 'dist', 'src', 'cli'), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, 'bin', 'berry-mcp'), join(tmp.dir, 'bin', 'berry-mcp'));
  });
  afterEach(() => tmp.cleanup());

  /** The Node command line the launcher would run (sh -x traces its exec; the "node" it finds is a stub). */
  async function started(): Promise<string> {
    mkdirSync(join(tmp.dir, 'stub'), { recursive: true });
    // It reads its stdin to the end, as a command would: the test's write to it must not meet a closed pipe.
    writeFileSync(join(tmp.dir, 'stub', 'node'), '#!/bin/sh\nexec cat >/dev/null\n', { mode: 0o755 });
    const result = await runProcess('sh', ['-x', join(tmp.dir, 'bin', 'berry-mcp'), '--version'], {
      cwd: tmp.dir,
      env: { PATH: `${join(tmp.dir, 'stub')}:${process.env['PATH']}` },
    });
    assert.equal(result.code, 0, result.stderr);
    return result.stderr.split('\n').find((line) => line.startsWith('+ exec node')) ?? result.stderr;
  }
  const at = (path: string, seconds: number): void => {
    writeFileSync(path, '');
    utimesSync(path, seconds, seconds);
  };

  it('the bundle when it is as new as the build or newer (a packed package sets every mtime alike)', async () => {
    at(join(tmp.dir, 'dist', 'src', 'bin.js'), 1_000_000);
    at(join(tmp.dir, 'dist', 'src', 'cli', 'launch.cjs'), 1_000_000);
    assert.match(await started(), /dist\/src\/cli\/launch\.cjs --version$/);
    at(join(tmp.dir, 'dist', 'src', 'cli', 'launch.cjs'), 2_000_000);
    assert.match(await started(), /dist\/src\/cli\/launch\.cjs --version$/);
  });

  it('dist/src/bin.js when a tsc build since left the bundle behind, or there is none', async () => {
    at(join(tmp.dir, 'dist', 'src', 'cli', 'launch.cjs'), 1_000_000);
    at(join(tmp.dir, 'dist', 'src', 'bin.js'), 1_000_001);
    assert.match(await started(), /dist\/src\/bin\.js --version$/);
    rmSync(join(tmp.dir, 'dist', 'src', 'cli', 'launch.cjs'));
    assert.match(await started(), /dist\/src\/bin\.js --version$/);
  });
});
