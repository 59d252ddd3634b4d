// The CLI faces of issue 14: read, prompt, typings SERVER, list from saved catalogs (--refresh),
// and --confirm-writes (refused off a terminal, asked on a pty).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath, filesystemPath, PROJECT_ROOT } from '../support/paths.js';
import { type CliResult, runProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');

function run(command: string, args: string[], cwd: string, env: Record<string, string>, input = ''): Promise<CliResult> {
  return runProcess(command, args, { cwd, env, input });
}

describe('CLI: resources, prompts, saved catalogs, --confirm-writes', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let cache: string;
  let config: string;
  const cli = (args: string[], input = ''): Promise<CliResult> =>
    run(process.execPath, [BIN, ...args, '--config', config], tmp.dir, { XDG_CACHE_HOME: cache }, input);

  before(() => {
    tmp = tempDir();
    cache = mkdtempSync(join(tmpdir(), 'berry-cli-cache-'));
    config = writeConfig(tmp.dir, {
      everything: { command: process.execPath, args: [everythingPath] },
      files: { command: process.execPath, args: [filesystemPath, tmp.dir], enabledTools: ['list_directory', 'gone_tool'] },
      fault: faultEntry(),
      tasks: faultEntry(['--tasks']),
    });
  });

  after(() => {
    tmp.cleanup();
    rmSync(cache, { recursive: true, force: true });
  });

  it('read SERVER URI prints a text resource; an unknown one exits 2 naming what exists', async () => {
    const ok = await cli(['read', 'everything', 'demo://resource/static/document/features.md']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(ok.stdout.length > 100);
    const bad = await cli(['read', 'everything', 'demo://nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /has no resource "demo:\/\/nope"\. Its resources: .*\[MCP_UNKNOWN_RESOURCE\]/s);
  });

  it('prompt SERVER NAME takes key=value or JSON arguments', async () => {
    const kv = await cli(['prompt', 'everything', 'args-prompt', 'city=Paris', 'state=IDF']);
    assert.equal(kv.code, 0, kv.stderr);
    assert.match(kv.stdout, /^user:\n.*Paris/m);
    const json = await cli(['prompt', 'everything', 'args-prompt', '{"city":"Lyon"}', '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.match(JSON.parse(json.stdout).messages[0].content.text, /Lyon/);
    const missing = await cli(['prompt', 'everything', 'args-prompt']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /needs "city"/);
  });

  it('call runs a task tool and prints its ordinary result', async () => {
    const result = await cli(['call', 'tasks', 'task_sleep', '{"ms":100}']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'slept 100 as a task\n');
  });

  it("typings SERVER writes one server's types, filtered", async () => {
    const result = await cli(['typings', 'files']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /"files": \{\s*\n(.*\n)*?\s*"list_directory": \{/);
    assert.doesNotMatch(result.stdout, /"everything"|"read_text_file"/);
  });

  it('list saves catalogs, answers from them next time (marked), and --refresh dials', async () => {
    // A cache of its own: typings above saved catalogs too.
    rmSync(cache, { recursive: true, force: true });
    const cold = await cli(['list', '--json']);
    assert.equal(cold.code, 0, cold.stderr);
    const coldServers = JSON.parse(cold.stdout).servers as { name: string; cached?: unknown; warnings?: string[] }[];
    assert.ok(coldServers.every((s) => s.cached === undefined));
    assert.deepEqual(coldServers.find((s) => s.name === 'files')?.warnings, ['enabledTools names "gone_tool", which the server does not have']);
    assert.ok(existsSync(join(cache, 'berry', 'catalogs')) && readdirSync(join(cache, 'berry', 'catalogs')).length === 4);
    const warm = await cli(['list']);
    assert.equal(warm.code, 0, warm.stderr);
    assert.match(warm.stdout, /everything\s+connected\s+stdio\s+\d+ tools\s+saved catalog, \d+ s old/);
    assert.match(warm.stdout, /warning: enabledTools names "gone_tool"/);
    const refreshed = await cli(['list', '--refresh', '--json']);
    assert.ok((JSON.parse(refreshed.stdout).servers as { cached?: unknown }[]).every((s) => s.cached === undefined));
  });

  it('--confirm-writes refuses a call that may write when not on a terminal, and never asks for read-only tools', async () => {
    const refused = await cli(['call', 'fault', 'echo', '{"text":"hi"}', '--confirm-writes']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /was refused: --confirm-writes needs a terminal.*\[MCP_CALL_REFUSED\]/);
    const readOnly = await cli(['call', 'everything', 'echo', '{"message":"hi"}', '--confirm-writes']);
    assert.equal(readOnly.code, 0, readOnly.stderr);
    const script = await cli(
      ['run', '-', '--confirm-writes'],
      'try { await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "x" } }); } catch (e) { text(e.code); }',
    );
    assert.equal(script.stdout.trim(), 'MCP_CALL_REFUSED');
  });

  it('--confirm-writes asks on a terminal: y calls, anything else refuses', async () => {
    const onPty = (answer: string, args = '{"text":"via pty"}'): Promise<CliResult> => {
      const command = [process.execPath, BIN, 'call', 'fault', 'echo', args, '--confirm-writes', '--config', config]
        .map((word) => `'${word.replace(/'/g, `'\\''`)}'`)
        .join(' ');
      // script(1) runs the command on a pty (stdin, stdout and stderr), fed from our stdin.
      return run('script', ['-qec', command, '/dev/null'], tmp.dir, { XDG_CACHE_HOME: cache }, `${answer}\n`);
    };
    const yes = await onPty('y');
    assert.equal(yes.code, 0, yes.stdout);
    assert.match(yes.stdout, /fault\/echo may write\.[\s\S]*"text": "via pty"[\s\S]*annotations: none[\s\S]*Allow this call\? \[y\/N\] /);
    assert.match(yes.stdout, /\] via pty\r?\n$/);
    const no = await onPty('n');
    assert.equal(no.code, 1, no.stdout);
    assert.match(no.stdout, /refused: declined at the terminal/);
    // A padded field no longer hides the one after it; escapes are shown, not run.
    const padded = await onPty('n', JSON.stringify({ text: `harmless\u001b[2J${'.'.repeat(3000)}`, command: 'rm -rf ~' }));
    assert.match(padded.stdout, /"command": "rm -rf ~"[\s\S]*"text": "harmless\\u001b\[2J\.+"…\(3,012 chars\)…"\.+"/);
    assert.doesNotMatch(padded.stdout, /\u001b\[2J/);
  });
});
