import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolatedVmFor, loadFailureMessage, loadIsolatedVm } from '../../src/runtime/load-ivm.js';

const distSrc = fileURLToPath(new URL('../../src', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));
const nodeMajor = Number(process.versions.node.split('.')[0]);

describe('loadIsolatedVm', () => {
  it('maps each supported Node major to exactly one isolated-vm alias', () => {
    assert.deepEqual(
      [20, 22, 24, 26].map((major) => isolatedVmFor(major).packageName),
      ['isolated-vm-5', 'isolated-vm-6', 'isolated-vm-7', 'isolated-vm-7'],
    );
    assert.equal(isolatedVmFor(22).major, 6);
  });

  it('loads the alias for this Node and runs code in an isolate', async () => {
    const ivm = await loadIsolatedVm();
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    try {
      const context = isolate.createContextSync();
      assert.equal(context.evalSync('6 * 7'), 42);
    } finally {
      isolate.dispose();
    }
    assert.equal(await loadIsolatedVm(), ivm, 'loaded once per process');
  });

  it('says which alias is missing for which Node and what to run, when it is not installed', () => {
    // A copy of the compiled loader with no node_modules above it: the real MODULE_NOT_FOUND path.
    const dir = mkdtempSync(join(tmpdir(), 'berry-ivm-'));
    try {
      cpSync(join(distSrc, 'common/errors.js'), join(dir, 'src/common/errors.js'));
      cpSync(join(distSrc, 'runtime/load-ivm.js'), join(dir, 'src/runtime/load-ivm.js'));
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      const probe =
        "const { loadIsolatedVm } = await import('./src/runtime/load-ivm.js');" +
        'await loadIsolatedVm().then(() => console.log("loaded"), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));';
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: dir, encoding: 'utf8' });
      const { code, message } = JSON.parse(out) as { code: string; message: string };
      const alias = isolatedVmFor(nodeMajor).packageName;
      assert.equal(code, 'SCRIPT_SETUP_FAILED');
      assert.match(
        message,
        new RegExp(
          `needs isolated-vm \\d \\(npm alias ${alias}, for Node [\\d a-z]+\\), which is not installed on Node ${process.version.replace(/\./g, '\\.')}`,
        ),
      );
      assert.match(message, /supported: Node 20, 22, 24 and 26/);
      assert.match(message, /Run `npm install` again with this Node/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says the native module does not load and how to rebuild it, when its binary is missing', () => {
    // A real load failure: this Node's isolated-vm package copied without its native binary.
    const choice = isolatedVmFor(nodeMajor);
    const dir = mkdtempSync(join(tmpdir(), 'berry-ivm-'));
    try {
      const pkg = join(root, 'node_modules', choice.packageName);
      cpSync(pkg, join(dir, 'pkg'), { recursive: true, filter: (src) => !/(\.node|\/out|\/build|\/prebuilds)$/.test(src) });
      let cause: unknown;
      try {
        createRequire(join(dir, 'x.js'))('./pkg');
      } catch (error) {
        cause = error;
      }
      assert.ok(cause instanceof Error, 'the stripped copy must fail to load');
      const message = loadFailureMessage(choice, cause);
      assert.match(message, new RegExp(`native module does not load on Node ${process.version.replace(/\./g, '\\.')}`));
      assert.match(message, /`npm rebuild berry-mcp`/);
      assert.match(message, /npm run build:isolated-vm/);
      assert.doesNotMatch(message, /\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the build script leaves a loading isolated-vm alone (no rebuild)', () => {
    const result = spawnSync(process.execPath, [join(root, 'scripts/build-isolated-vm.mjs'), '--verbose'], { encoding: 'utf8' });
    assert.equal(result.status, 0);
    assert.match(result.stderr, /isolated-vm \d+\.\d+\.\d+ \(isolated-vm-\d\) on Node v[\d.]+ loads\n$/);
  });
});
