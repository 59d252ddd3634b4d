// The bundled command (dist/src/cli/command.cjs, scripts/bundle-cli.mjs) and the V8 code cache that
// src/cli/launch/bundle-cache.ts keeps of it on a Node without a module compile cache (Node 20). Each case
// runs a copy of the two bundled files in its own folder (test/support/bundle-copy.ts), so a case
// may edit the bundle. A cache planted by someone else: test/adversarial/bundle-cache.test.ts.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCopy, NODE_HAS_CACHE, type BundleCopy } from '../support/bundle-copy.js';

describe('the bundled command and its code cache', function () {
  this.timeout(60_000);
  let copy: BundleCopy;
  beforeEach(() => {
    copy = bundleCopy();
  });
  afterEach(() => copy.cleanup());

  it('runs a script, finds its package.json and the packages from the bundle', async () => {
    const version = await copy.start(['--version']);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout, 'berry-mcp 9.8.7\n');
    // A checked script loads TypeScript late (import() in the sources, a require in the bundle).
    const ran = await copy.start(['run', '-'], {}, 'const n: number = 2; text(n * 21)');
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout, '42\n');
    assert.equal(ran.stderr, '');
  });

  describe('on Node 20 (no module compile cache)', () => {
    before(function () {
      if (NODE_HAS_CACHE) this.skip();
    });

    it('is made at the first start and read, not written, by the next', async () => {
      assert.equal((await copy.start(['run', '-'], {}, 'text(1)')).code, 0);
      const [file] = copy.cacheFiles();
      assert.match(file ?? '', new RegExp(`^command\\.cjs-${process.version}-${process.arch}-no-snapshot\\.v8$`));
      const path = join(copy.cacheDir, file!);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const made = statSync(path).mtimeMs;
      const again = await copy.start(['run', '-'], {}, 'text(2)');
      assert.equal(again.stdout, '2\n');
      assert.equal(statSync(path).mtimeMs, made, 'an accepted cache is not written again');
    });

    it('an edit of the bundle that keeps its length runs the new code, not the cached old one', async () => {
      assert.equal((await copy.start(['--version'])).stdout, 'berry-mcp 9.8.7\n');
      assert.equal(copy.cacheFiles().length, 1);
      // V8 checks only the source's length: the cache's own first line (size, mtime, inode) must catch this.
      const source = readFileSync(copy.command, 'utf8');
      const edited = source.replace('`berry-mcp ${VERSION}', '`berry-MCP ${VERSION}');
      assert.notEqual(edited, source);
      assert.equal(edited.length, source.length);
      writeFileSync(copy.command, edited);
      const after = await copy.start(['--version']);
      assert.equal(after.code, 0, after.stderr);
      assert.equal(after.stdout, 'berry-MCP 9.8.7\n');
    });

    it('a cache V8 rejects (garbage after a right first line) is only a slower start, and is made again', async () => {
      assert.equal((await copy.start(['--version'])).code, 0);
      const path = join(copy.cacheDir, copy.cacheFiles()[0]!);
      const text = readFileSync(path);
      const header = text.subarray(0, text.indexOf(10) + 1);
      const garbage = Buffer.concat([header, Buffer.alloc(4096, 0x41)]);
      writeFileSync(path, garbage);
      const after = await copy.start(['--version']);
      assert.equal(after.code, 0, after.stderr);
      assert.equal(after.stdout, 'berry-mcp 9.8.7\n');
      assert.equal(after.stderr, '');
      assert.ok(!readFileSync(path).equals(garbage), 'made again');
    });

    it('an unusable folder, NODE_DISABLE_COMPILE_CACHE=1, eight starts at once: never in the way', async () => {
      const file = join(copy.dir, 'not-a-dir');
      writeFileSync(file, 'x');
      const unusable = await copy.start(['--version'], { XDG_CACHE_HOME: file });
      assert.equal(unusable.code, 0, unusable.stderr);
      assert.equal(unusable.stderr, '');
      const off = await copy.start(['--version'], { NODE_DISABLE_COMPILE_CACHE: '1' });
      assert.equal(off.code, 0, off.stderr);
      assert.deepEqual(copy.cacheFiles(), []);
      for (let round = 0; round < 2; round++) {
        const results = await Promise.all(Array.from({ length: 8 }, () => copy.start(['run', '-'], {}, 'text(7)')));
        for (const result of results) {
          assert.equal(result.code, 0, result.stderr);
          assert.equal(result.stdout, '7\n');
          assert.equal(result.stderr, '');
        }
      }
      assert.equal(copy.cacheFiles().length, 1, 'no temporary file left');
    });
  });

  it('on a Node with a module compile cache, leaves the caching to Node', async function () {
    if (!NODE_HAS_CACHE) this.skip();
    assert.equal((await copy.start(['--version'])).code, 0);
    assert.deepEqual(copy.cacheFiles(), []);
  });
});
