// The code cache of the bundled command (src/cli/launch/bundle-cache.ts, Node 20) is compiled code that
// runs as the user who starts berry-mcp. The cheapest way around it: another local user plants a
// cache for the bundle in a folder both can write (XDG_CACHE_HOME pointed at one), with the right
// first line (the bundle's size, mtime and inode are anyone's to read) and the code of their
// choice behind it. Here the planted code is a real cache of an edited bundle, so it would run
// if read: it prints "berry-MCP". Read only when this user owns it and no one else may write it.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCopy, NODE_HAS_CACHE, type BundleCopy } from '../support/bundle-copy.js';

describe('attack: a code cache planted for the bundled command', function () {
  this.timeout(60_000);
  let copy: BundleCopy;
  let planted: Buffer;
  let path: string;
  before(function () {
    if (NODE_HAS_CACHE) this.skip();
  });
  beforeEach(async () => {
    copy = bundleCopy();
    // The planted code: the cache of a same-length edit, behind the first line of the real bundle.
    const source = readFileSync(copy.command, 'utf8');
    writeFileSync(copy.command, source.replace('`berry-mcp ${VERSION}', '`berry-MCP ${VERSION}'));
    assert.equal((await copy.start(['--version'])).stdout, 'berry-MCP 9.8.7\n');
    path = join(copy.cacheDir, copy.cacheFiles()[0]!);
    const evil = readFileSync(path);
    writeFileSync(copy.command, source);
    const stats = statSync(copy.command);
    planted = Buffer.concat([Buffer.from(`${stats.size} ${stats.mtimeMs} ${stats.ino}\n`), evil.subarray(evil.indexOf(10) + 1)]);
  });
  afterEach(() => copy.cleanup());

  it("the control: the same file, this user's own and private, is read (the attack is real)", async () => {
    writeFileSync(path, planted, { mode: 0o600 });
    chmodSync(path, 0o600);
    assert.equal((await copy.start(['--version'])).stdout, 'berry-MCP 9.8.7\n');
  });

  it('a cache others may write (mode 0666) is not read, and is made again', async () => {
    writeFileSync(path, planted);
    chmodSync(path, 0o666);
    const result = await copy.start(['--version']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'berry-mcp 9.8.7\n');
    assert.equal(statSync(path).mode & 0o777, 0o600, 'replaced by a cache of its own');
  });

  it('a cache another user owns is not read (as root: chown to another uid)', async function () {
    if (process.getuid?.() !== 0) this.skip();
    writeFileSync(path, planted, { mode: 0o600 });
    chmodSync(path, 0o600);
    chownSync(path, 4242, 4242);
    const result = await copy.start(['--version']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'berry-mcp 9.8.7\n');
  });
});
