import assert from 'node:assert/strict';
import { join } from 'node:path';
import { terminalSafe } from '../../src/cli/output/terminal-safe.js';
import { faultEntry } from '../support/fixture-servers.js';
import { PROJECT_ROOT } from '../support/paths.js';
import { type CliResult, runProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');
/** ESC, BEL, C1 CSI, CR and the bidi override: none may reach a terminal raw. */
const RAW = /[\u001b\u0007\u009b\r\u202e]/;

/** The bin in `cwd`, its saved catalogs there too (never in the real home). */
function cli(args: string[], cwd: string): Promise<CliResult> {
  return runProcess(process.execPath, [BIN, ...args], { cwd, env: { XDG_CACHE_HOME: join(cwd, 'cache') } });
}

describe('terminalSafe', () => {
  it('shows control characters as visible escapes and keeps newlines and tabs', () => {
    assert.equal(terminalSafe('a\x1b[2Jb\x07c\x9bd\u202ee\tf\ng\r\nh\ri\x7f'), 'a\\x1b[2Jb\\x07c\\x9bd\\u202ee\tf\ng\nh\\x0di\\x7f');
    assert.equal(terminalSafe('plain ünïcödé ✓'), 'plain ünïcödé ✓');
  });
});

describe('CLI human output neutralizes terminal escapes; --json stays exact', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  const evil = '\x1b[2J\x1b]0;title\x07red\x1b[31m\u202e';

  before(() => {
    tmp = tempDir();
    writeConfig(tmp.dir, { fault: faultEntry(['--ansi', `--instructions=hi${evil}`]) });
  });
  after(() => tmp.cleanup());

  it('list: tool descriptions', async () => {
    const { code, stdout } = await cli(['list', '--config', 'mcp.json'], tmp.dir);
    assert.equal(code, 0);
    assert.match(stdout, /Returns its text\.\\x1b\[2J/);
    assert.doesNotMatch(stdout, RAW);
  });

  it('describe: instructions and descriptions', async () => {
    const server = await cli(['describe', 'fault', '--config', 'mcp.json'], tmp.dir);
    assert.doesNotMatch(server.stdout, RAW);
    assert.match(server.stdout, /hi\\x1b\[2J/);
    const tool = await cli(['describe', 'fault', 'echo', '--config', 'mcp.json'], tmp.dir);
    assert.doesNotMatch(tool.stdout, RAW);
  });

  it('call: tool results, and server stderr with --verbose', async () => {
    const { code, stdout, stderr } = await cli(
      ['call', 'fault', 'echo', JSON.stringify({ text: `result${evil}` }), '--config', 'mcp.json', '--verbose'],
      tmp.dir,
    );
    assert.equal(code, 0);
    assert.match(stdout, /result\\x1b\[2J/);
    assert.doesNotMatch(stdout, RAW);
    assert.match(stderr, /stderr \\x1b\[2J/);
    assert.doesNotMatch(stderr, RAW);
  });

  it('run: outputs, logs and the error message of a script', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(tmp.dir, 'evil.js'), `const e = ${JSON.stringify(evil)}; text("out" + e); console.log("log" + e); throw new Error("boom" + e);`);
    const { code, stdout, stderr } = await cli(['run', 'evil.js', '--config', 'mcp.json'], tmp.dir);
    assert.equal(code, 1);
    assert.match(stdout, /out\\x1b\[2J/);
    assert.doesNotMatch(stdout + stderr, RAW);
    assert.match(stderr, /boom\\x1b\[2J/);
  });

  it('--json keeps the exact text', async () => {
    const { stdout } = await cli(['call', 'fault', 'echo', JSON.stringify({ text: `result${evil}` }), '--config', 'mcp.json', '--json'], tmp.dir);
    const result = JSON.parse(stdout) as { content: { text: string }[] };
    assert.equal(result.content[0]!.text, `result${evil}`);
  });
});
