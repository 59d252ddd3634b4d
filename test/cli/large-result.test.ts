import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { berry } from '../support/berry-cli.js';
import { filesystemPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

describe('berry-mcp run: a file larger than --memory', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;

  before(() => {
    tmp = tempDir('berry-cli-large-');
    writeFileSync(join(tmp.dir, 'big.txt'), 'a'.repeat(24 * 1024 * 1024));
    writeConfig(tmp.dir, { files: { command: process.execPath, args: [filesystemPath, tmp.dir] } });
  });
  after(() => tmp.cleanup());

  it('fails the script with MCP_RESULT_TOO_LARGE, in the flags a person typed, and exits 1 (it used to abort)', async () => {
    const script = `await tools.mcp_call({ server: "files", tool: "read_text_file", arguments: { path: ${JSON.stringify(join(tmp.dir, 'big.txt'))} } });`;
    const result = await berry(['run', '-', '--config', 'mcp.json', '--memory', '16'], { cwd: tmp.dir, input: script });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /RangeError \[MCP_RESULT_TOO_LARGE\]: tools\.mcp_call\(\): the answer is \d+\.\d MB/);
    assert.match(result.stderr, /of its 16 MB memory limit \(--memory\) free\. .*or raise the memory limit\.\n$/);
    assert.doesNotMatch(result.stderr, /FatalRuntimeError/);
  });
});
