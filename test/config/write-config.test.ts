import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceConfigText } from '../../src/config/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { LocalMachine } from '../../src/machine/local-machine.js';
import type { WriteFileOptions } from '../../src/machine/machine.js';
import { tempDir } from '../support/temp-dir.js';

/** A real local machine on which another editor saves the config right after our temp file is written. */
class RacingMachine extends LocalMachine {
  constructor(private readonly target: string, private readonly theirs: string) {
    super();
  }
  override async writeFile(path: string, data: string, options: WriteFileOptions, signal?: AbortSignal): Promise<void> {
    await super.writeFile(path, data, options, signal);
    if (path !== this.target) writeFileSync(this.target, this.theirs);
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

  it('a write that fails is MCP_CONFIG_WRITE_FAILED, naming the file and the errno code', async () => {
    writeFileSync(join(tmp.dir, 'not-a-dir'), '');
    const path = join(tmp.dir, 'not-a-dir', 'mcp.json');
    await assert.rejects(
      replaceConfigText(new LocalMachine(), path, undefined, '{}'),
      (error: unknown) => isCode('MCP_CONFIG_WRITE_FAILED')(error) && /Cannot write the MCP config file .*not-a-dir\/mcp\.json: (ENOTDIR|EEXIST)/.test((error as Error).message),
    );
  });
});
