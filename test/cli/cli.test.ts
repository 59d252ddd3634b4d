import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath, PROJECT_ROOT } from '../support/paths.js';
import { type CliResult, runProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');

const CACHE_HOME = mkdtempSync(join(tmpdir(), 'berry-cli-cache-'));
after(() => rmSync(CACHE_HOME, { recursive: true, force: true }));

function cli(args: string[], options: { cwd: string; input?: string; env?: Record<string, string> }): Promise<CliResult> {
  // Saved catalogs go to a temp cache, never the real home.
  return runProcess(process.execPath, [BIN, ...args], { ...options, env: { XDG_CACHE_HOME: CACHE_HOME, ...options.env } });
}

describe('berry-mcp CLI', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;

  before(() => {
    tmp = tempDir();
    writeConfig(tmp.dir, {
      everything: { command: process.execPath, args: [everythingPath] },
      fault: faultEntry(),
      broken: { command: 'berry-no-such-command-xyz' },
    });
  });
  after(() => tmp.cleanup());

  it('list --json prints exactly what mcp_list returns', async () => {
    const { code, stdout } = await cli(['list', '--json', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(code, 0);
    const result = JSON.parse(stdout) as { configPath: string; servers: { name: string; status: string }[] };
    assert.equal(result.configPath, join(tmp.dir, 'mcp.json'));
    assert.deepEqual(
      result.servers.map((s) => [s.name, s.status]),
      [
        ['everything', 'connected'],
        ['fault', 'connected'],
        ['broken', 'error'],
      ],
    );
  });

  it('list prints an aligned table for people', async () => {
    const { code, stdout } = await cli(['list', 'everything', '--refresh', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(code, 0);
    assert.match(stdout, /^everything {2}connected {2}stdio {2}\d+ tools {2}MCP 2025-11-25$/m);
    assert.match(stdout, /^ {2}echo +Echoes back the input string$/m);
  });

  it('call prints text content; exit 0, and 1 when the tool returns isError', async () => {
    const ok = await cli(['call', 'everything', 'echo', '{"message":"hi"}', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(ok.code, 0);
    assert.equal(ok.stdout, 'Echo: hi\n');
    const failed = await cli(['call', 'fault', 'fail', '--config', 'mcp.json', '--json'], { cwd: tmp.dir });
    assert.equal(failed.code, 1);
    assert.equal((JSON.parse(failed.stdout) as { isError: boolean }).isError, true);
  });

  it('call writes images to --out and prints their paths', async () => {
    const out = join(tmp.dir, 'images');
    const { code, stdout } = await cli(['call', 'everything', 'get-tiny-image', '--out', out, '--config', 'mcp.json'], {
      cwd: tmp.dir,
    });
    assert.equal(code, 0);
    const match = /\[image image\/png written to (.+\.png)\]/.exec(stdout);
    assert.ok(match, stdout);
    assert.deepEqual([...readFileSync(match[1]!).subarray(1, 4)], [...Buffer.from('PNG')]);
  });

  it('describe shows a tool schema', async () => {
    const { code, stdout } = await cli(['describe', 'everything', 'get-sum', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(code, 0);
    assert.match(stdout, /everything \/ get-sum/);
    assert.match(stdout, /^arguments: \{ \/\*\* First number \*\/ a: number; \/\*\* Second number \*\/ b: number \}$/m);
    assert.doesNotMatch(stdout, /Input schema:/);
    const raw = await cli(['describe', 'everything', 'get-sum', '--schemas', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.match(raw.stdout, /Input schema:\n\{\n {2}"type": "object"/);
  });

  it('exit 2 for bad usage, bad config, an unknown server, and an unreachable server', async () => {
    const usage = await cli(['frobnicate'], { cwd: tmp.dir });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /unknown command "frobnicate"/);
    const badJson = await cli(['call', 'everything', 'echo', '{nope', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(badJson.code, 2);
    assert.match(badJson.stderr, /arguments must be JSON/);
    const unknown = await cli(['call', 'nope', 'x', '--config', 'mcp.json', '--json'], { cwd: tmp.dir });
    assert.equal(unknown.code, 2);
    assert.equal((JSON.parse(unknown.stdout) as { error: { code: string } }).error.code, 'MCP_UNKNOWN_SERVER');
    const unreachable = await cli(['call', 'broken', 'x', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(unreachable.code, 2);
    assert.match(unreachable.stderr, /MCP_CONNECT_FAILED/);
    writeConfig(join(tmp.dir, 'bad'), {});
    const badConfigPath = join(tmp.dir, 'bad', 'mcp.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(badConfigPath, '{ "mcpServers": { "a": { "command": "x", } } }');
    const badConfig = await cli(['list', '--config', badConfigPath], { cwd: tmp.dir });
    assert.equal(badConfig.code, 2);
    assert.match(badConfig.stderr, /line 1, column \d+/);
  });

  it('--verbose streams lifecycle and server stderr to stderr', async () => {
    const { code, stderr } = await cli(['call', 'fault', 'echo', '{"text":"x"}', '--verbose', '--config', 'mcp.json'], {
      cwd: tmp.dir,
    });
    assert.equal(code, 0);
    assert.match(stderr, /\[fault\] spawned: spawned pid \d+/);
    assert.match(stderr, /\[fault\] initialized: .*protocol/);
    assert.match(stderr, /\[fault\] closed: closed \(host closed\)/);
  });
});

describe('berry-mcp run', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;

  before(() => {
    tmp = tempDir();
    writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
  });
  after(() => tmp.cleanup());

  it('runs a script file: text to stdout, logs to stderr, images to --out, the return value last', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      join(tmp.dir, 'script.js'),
      [
        'console.log("starting");',
        'const r = await tools.mcp_call({ server: "everything", tool: "echo", arguments: { message: "from a file" } });',
        'text(r.content[0].text);',
        'const img = await tools.mcp_call({ server: "everything", tool: "get-tiny-image", arguments: {} });',
        'for (const block of img.content) if (block.type === "image") image(block);',
        'return { done: true };',
      ].join('\n'),
    );
    const out = join(tmp.dir, 'out');
    // Started without --no-node-snapshot: the bin must re-execute Node with it for the sandbox.
    const { code, stdout, stderr } = await cli(['run', 'script.js', '--out', out, '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^starting$/m);
    const lines = stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'Echo: from a file');
    assert.match(lines[1] ?? '', new RegExp(`^\\[image image/png written to ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/image-1\\.png\\]$`));
    assert.deepEqual(JSON.parse(lines.slice(2).join('\n')), { done: true });
  });

  it('reads the script from stdin with -, and --json prints the run record', async () => {
    const { code, stdout } = await cli(['run', '-', '--json', '--config', 'mcp.json'], {
      cwd: tmp.dir,
      input: 'text("hi"); console.warn("careful"); return 41 + 1;',
    });
    assert.equal(code, 0);
    const record = JSON.parse(stdout) as { ok: boolean; result: number; outputs: unknown[]; logs: unknown[]; calls: number };
    assert.equal(record.ok, true);
    assert.equal(record.result, 42);
    assert.deepEqual(record.outputs, [{ type: 'text', text: 'hi' }]);
    assert.deepEqual(record.logs, [{ level: 'warn', text: 'careful' }]);
    assert.equal(record.calls, 0);
  });

  it('exits 1 when the script fails, with the error and its position on stderr; --timeout ends a loop', async () => {
    const failed = await cli(['run', '-', '--config', 'mcp.json'], { cwd: tmp.dir, input: 'const a = 1;\nnull.x;\n' });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /script failed \(line 2, column \d+\): TypeError/);
    const looped = await cli(['run', '-', '--timeout', '0.5', '--json'], { cwd: tmp.dir, input: 'while (true) {}' });
    assert.equal(looped.code, 1);
    assert.equal((JSON.parse(looped.stdout) as { error: { code: string } }).error.code, 'SCRIPT_TIMEOUT');
  });
});

describe('berry-mcp typings', function () {
  this.timeout(60_000);

  it('writes a .d.ts for the configured servers with -o, warning about broken ones', async () => {
    const tmp = tempDir();
    try {
      writeConfig(tmp.dir, {
        everything: { command: process.execPath, args: [everythingPath] },
        broken: { command: 'berry-no-such-command-xyz' },
      });
      const { code, stderr } = await cli(['typings', '-o', 'servers.d.ts', '--config', 'mcp.json'], { cwd: tmp.dir });
      assert.equal(code, 0, stderr);
      const dts = readFileSync(join(tmp.dir, 'servers.d.ts'), 'utf8');
      assert.match(dts, /"everything"/);
      assert.match(dts, /"get-sum"/);
      assert.match(dts, /broken/);
      assert.doesNotMatch(dts, /"broken": \{/);
      const again = await cli(['typings', '--config', 'mcp.json'], { cwd: tmp.dir });
      assert.equal(again.stdout, dts, 'deterministic');
    } finally {
      tmp.cleanup();
    }
  });
});
