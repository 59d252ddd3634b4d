import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { berry } from '../support/berry-cli.js';
import { everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

describe('berry-mcp call, list and errors (as a person runs them)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;

  before(() => {
    tmp = tempDir();
    writeConfig(tmp.dir, {
      everything: { command: process.execPath, args: [everythingPath] },
      broken: { command: 'berry-no-such-command-xyz' },
      later: { command: 'x', enabled: false },
    });
  });
  after(() => tmp.cleanup());

  it('call SERVER TOOL key=value… types the values by the tool schema', async () => {
    const sum = await berry(['call', 'everything', 'get-sum', 'a=2', 'b=40.5', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(sum.code, 0, sum.stderr);
    assert.equal(sum.stdout, 'The sum of 2 and 40.5 is 42.5.\n');
    // A string-typed property keeps digits as text.
    const echo = await berry(['call', 'everything', 'echo', 'message=123', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(echo.stdout, 'Echo: 123\n');
    const json = await berry(['call', 'everything', 'get-sum', '{"a":1,"b":2}', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(json.stdout, 'The sum of 1 and 2 is 3.\n');
  });

  it('a key=value that does not fit the schema is a usage error naming the argument', async () => {
    const notNumber = await berry(['call', 'everything', 'get-sum', 'a=two', 'b=2', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(notNumber.code, 2);
    assert.match(notNumber.stderr, /^berry-mcp: a needs a number, got "two"\nsee `berry-mcp help call`\n$/);
    const typo = await berry(['call', 'everything', 'echo', 'mesage=hi', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /echo has no argument "mesage"\. Did you mean "message"\?/);
  });

  it('prints structuredContent only when it adds to the content', async () => {
    const result = await berry(['call', 'everything', 'get-structured-content', 'location=Chicago', '--config', 'mcp.json'], {
      cwd: tmp.dir,
    });
    assert.equal(result.code, 0, result.stderr);
    // The text block is the same JSON as structuredContent: printed once.
    assert.equal(result.stdout.trim().split('\n').length, 1, result.stdout);
    assert.deepEqual(Object.keys(JSON.parse(result.stdout) as object).sort(), ['conditions', 'humidity', 'temperature']);
  });

  it('without --out, the images of one call go to one new folder under the temp dir, path printed', async () => {
    const result = await berry(['call', 'everything', 'get-tiny-image', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(result.code, 0, result.stderr);
    const match = /\[image image\/png written to (.+)\]/.exec(result.stdout);
    assert.ok(match, result.stdout);
    const path = match[1]!;
    try {
      assert.equal(dirname(dirname(path)), join(tmpdir(), 'berry-mcp'));
      assert.match(path, /\/\d{8}-\d{6}-\d+\/image-1\.png$/);
      assert.deepEqual(readdirSync(dirname(path)), ['image-1.png']);
    } finally {
      rmSync(dirname(path), { recursive: true, force: true });
    }
    assert.doesNotMatch(result.stdout, /iVBOR/, 'no base64 after the path');
  });

  it('list ends with a summary line when servers are in error', async () => {
    const result = await berry(['list', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /\n3 servers: 1 connected, 1 error, 1 disabled \(config: .*mcp\.json\)\n$/);
  });

  it('an explicit --config that does not exist says so plainly, exit 2', async () => {
    const result = await berry(['list', '--config', 'nope.json'], { cwd: tmp.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^berry-mcp: --config nope\.json: no such file \(.*nope\.json\), so no servers\n/);
    assert.equal(existsSync(join(tmp.dir, 'nope.json')), false);
  });

  it('an unknown tool gets "did you mean" from the catalog, for describe and for call', async () => {
    const describe = await berry(['describe', 'everything', 'ech', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(describe.code, 2);
    assert.match(describe.stderr, /no tool "ech"\..* Did you mean "echo"\? \[MCP_UNKNOWN_TOOL\]\n$/);
    const call = await berry(['call', 'everything', 'ech', 'message=x', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(call.code, 2);
    assert.equal(call.stderr.match(/Did you mean "echo"\?/g)?.length, 1, call.stderr);
  });

  it('SSH messages name the flags (--identity), not the library options (identityFile)', async () => {
    const result = await berry(['list', '--ssh', 'nobody@127.0.0.1:1'], { cwd: tmp.dir, env: { HOME: tmp.dir, SSH_AUTH_SOCK: '' } });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no credentials to offer: pass --identity FILE/);
    assert.doesNotMatch(result.stderr, /identityFile/);
  });

  it('an unknown server gets "did you mean" from the config', async () => {
    const result = await berry(['call', 'everythin', 'echo', 'message=x', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Unknown server "everythin"\..* Did you mean "everything"\? \[MCP_UNKNOWN_SERVER\]/);
  });
});
