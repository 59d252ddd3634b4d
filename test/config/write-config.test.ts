import assert from 'node:assert/strict';
import { chmodSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceConfigText } from '../../src/config/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { LocalMachine } from '../../src/remote/machine/local-machine.js';
import type { WriteFileOptions } from '../../src/remote/machine/machine.js';
import { tempDir } from '../support/temp-dir.js';

/** A real local machine on which another editor saves the config right after our temp file is written. */
class RacingMachine extends LocalMachine {
  constructor(
    private readonly target: string,
    private readonly theirs: string,
  ) {
    super();
  }
  override async writeFile(path: string, data: string, options: WriteFileOptions, signal?: AbortSignal): Promise<void> {
    await super.writeFile(path, data, options, signal);
    if (path !== this.target) writeFileSync(this.target, this.theirs);
  }
}

/** A real local machine on which the config's symlink is pointed elsewhere right after our temp file is written. */
class RelinkingMachine extends LocalMachine {
  constructor(
    private readonly link: string,
    private readonly elsewhere: string,
  ) {
    super();
  }
  override async writeFile(path: string, data: string, options: WriteFileOptions, signal?: AbortSignal): Promise<void> {
    await super.writeFile(path, data, options, signal);
    unlinkSync(this.link);
    symlinkSync(this.elsewhere, this.link);
  }
}

const isCode = (code: string) => (error: unknown) => isBerryError(error) && error.code === code;

describe('config/write-config: replacing the file atomically', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  it('replaces the file, creating its folders (0700) and the file (0600), with no temp file left', async () => {
    const path = join(tmp.dir, 'a', 'b', 'mcp.json');
    await replaceConfigText(new LocalMachine(), path, undefined, '{"mcpServers": {}}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"mcpServers": {}}\n');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(tmp.dir, 'a', 'b')).mode & 0o777, 0o700);
    await replaceConfigText(new LocalMachine(), path, '{"mcpServers": {}}\n', '{}\n');
    assert.equal(readFileSync(path, 'utf8'), '{}\n');
    assert.deepEqual(readdirSync(join(tmp.dir, 'a', 'b')), ['mcp.json']);
  });

  it('a file changed since it was read is left as the other editor saved it: MCP_CONFIG_CHANGED', async () => {
    const path = join(tmp.dir, 'mcp.json');
    writeFileSync(path, 'ours');
    writeFileSync(path, 'theirs');
    await assert.rejects(replaceConfigText(new LocalMachine(), path, 'ours', 'edited'), isCode('MCP_CONFIG_CHANGED'));
    assert.equal(readFileSync(path, 'utf8'), 'theirs');
    // Also when the other save lands while ours is half done (after our temp file is written).
    writeFileSync(path, 'ours');
    await assert.rejects(replaceConfigText(new RacingMachine(path, 'theirs, later'), path, 'ours', 'edited'), isCode('MCP_CONFIG_CHANGED'));
    assert.equal(readFileSync(path, 'utf8'), 'theirs, later');
    // A file created meanwhile where there was none.
    const fresh = join(tmp.dir, 'fresh.json');
    await assert.rejects(replaceConfigText(new RacingMachine(fresh, '{}'), fresh, undefined, 'edited'), isCode('MCP_CONFIG_CHANGED'));
    assert.equal(readFileSync(fresh, 'utf8'), '{}');
    assert.deepEqual(readdirSync(tmp.dir).sort(), ['fresh.json', 'mcp.json']);
  });

  it('a symlinked file is replaced where the link leads, keeping its mode; the link stays; the written path is returned', async () => {
    const real = join(tmp.dir, 'real.json');
    writeFileSync(real, 'old');
    chmodSync(real, 0o640);
    const link = join(tmp.dir, 'mcp.json');
    symlinkSync('real.json', link);
    assert.equal(await replaceConfigText(new LocalMachine(), link, 'old', 'new'), real);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(real, 'utf8'), 'new');
    assert.equal(statSync(real).mode & 0o777, 0o640);
    assert.deepEqual(readdirSync(tmp.dir).sort(), ['mcp.json', 'real.json']);
    // A plain file keeps its mode too, and its own path comes back.
    chmodSync(real, 0o644);
    assert.equal(await replaceConfigText(new LocalMachine(), real, 'new', 'newer'), real);
    assert.equal(statSync(real).mode & 0o777, 0o644);
  });

  it('a link pointed at another file while the edit is half done: MCP_CONFIG_CHANGED, neither file written', async () => {
    writeFileSync(join(tmp.dir, 'a.json'), 'same');
    writeFileSync(join(tmp.dir, 'b.json'), 'same');
    const link = join(tmp.dir, 'mcp.json');
    symlinkSync('a.json', link);
    await assert.rejects(replaceConfigText(new RelinkingMachine(link, 'b.json'), link, 'same', 'edited'), isCode('MCP_CONFIG_CHANGED'));
    assert.equal(readFileSync(join(tmp.dir, 'a.json'), 'utf8'), 'same');
    assert.equal(readFileSync(join(tmp.dir, 'b.json'), 'utf8'), 'same');
    assert.deepEqual(readdirSync(tmp.dir).sort(), ['a.json', 'b.json', 'mcp.json']);
  });

  it('a write that fails is MCP_CONFIG_WRITE_FAILED, naming the file and the errno code', async () => {
    writeFileSync(join(tmp.dir, 'not-a-dir'), '');
    const path = join(tmp.dir, 'not-a-dir', 'mcp.json');
    await assert.rejects(
      replaceConfigText(new LocalMachine(), path, undefined, '{}'),
      (error: unknown) =>
        isCode('MCP_CONFIG_WRITE_FAILED')(error) && /Cannot write the MCP config file .*not-a-dir\/mcp\.json: (ENOTDIR|EEXIST)/.test((error as Error).message),
    );
  });
});
