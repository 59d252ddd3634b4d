import assert from 'node:assert/strict';
import { renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost } from '../../../src/index.js';
import { UnchangedFiles } from '../../../src/remote/machine/unchanged-file.js';
import { faultEntry } from '../../support/fixture-servers.js';
import { tempDir } from '../../support/temp-dir.js';

// The config is reread on every operation; a stat may prove it unchanged. These are the edges of
// that proof: every change must be seen by the next read, however little it changes.
describe('machine/unchanged-file', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('sees a same-size rewrite made right after a read (same tick, same size)', () => {
    const files = new UnchangedFiles();
    const path = join(tmp.dir, 'a.json');
    writeFileSync(path, 'aaaa');
    assert.equal(files.read(path), 'aaaa');
    writeFileSync(path, 'bbbb');
    assert.equal(files.read(path), 'bbbb');
  });

  it('once the file has settled, still sees a rewrite that restores its size and mtime', async function () {
    this.timeout(10_000);
    const files = new UnchangedFiles();
    const path = join(tmp.dir, 'b.json');
    writeFileSync(path, '{"x":1}');
    const { atime, mtime } = statSync(path);
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal(files.read(path), '{"x":1}');
    assert.equal(files.read(path), '{"x":1}');
    writeFileSync(path, '{"x":2}');
    utimesSync(path, atime, mtime);
    assert.equal(files.read(path), '{"x":2}');
  });

  it('sees a file replaced by rename, a removed file, and one created again', () => {
    const files = new UnchangedFiles();
    const path = join(tmp.dir, 'c.json');
    writeFileSync(path, 'one');
    assert.equal(files.read(path), 'one');
    writeFileSync(`${path}.tmp`, 'two');
    renameSync(`${path}.tmp`, path);
    assert.equal(files.read(path), 'two');
    tmp.cleanup();
    assert.equal(files.read(path), undefined);
  });

  it('a host sees a same-size edit of mcp.json made right after a call', async () => {
    const path = join(tmp.dir, 'mcp.json');
    const write = (name: string): void => writeFileSync(path, JSON.stringify({ mcpServers: { [name]: faultEntry() } }));
    write('aa');
    const host = createHost({ cwd: tmp.dir, configPath: path });
    try {
      await host.call({ server: 'aa', tool: 'echo', arguments: { text: 'x' } });
      write('bb');
      const listed = await host.list({});
      assert.deepEqual(
        listed.servers.map((s) => s.name),
        ['bb'],
      );
    } finally {
      await host.close();
    }
  });
});
