import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/commands.js';
import { berry } from '../support/berry-cli.js';
import { runProcess } from '../support/processes.js';
import { everythingPath, FIXTURES_DIR, PROJECT_ROOT } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

describe('berry-mcp help and usage errors', function () {
  this.timeout(60_000);
  const cwd = process.cwd();

  it('help and --help list every command; help COMMAND and COMMAND -h show its own help', async () => {
    const overview = await berry(['help'], { cwd });
    assert.equal(overview.code, 0);
    for (const name of Object.keys(COMMANDS)) assert.match(overview.stdout, new RegExp(`berry-mcp ${name}\\b`));
    assert.equal((await berry(['--help'], { cwd })).stdout, overview.stdout);
    for (const name of Object.keys(COMMANDS)) {
      const help = await berry(['help', name], { cwd });
      assert.equal(help.code, 0, name);
      assert.match(help.stdout, new RegExp(`^Usage: berry-mcp ${name}\\b`), name);
      const short = await berry([name, '-h'], { cwd });
      assert.equal(short.code, 0, name);
      assert.equal(short.stdout, help.stdout, `${name} -h`);
    }
    const run = await berry(['help', 'run'], { cwd });
    assert.match(run.stdout, /--timeout SECONDS/);
    assert.match(run.stdout, /--memory MB/);
  });

  it('help run names every function a script gets on `tools` (the typings are the list)', async () => {
    const typings = readFileSync(join(PROJECT_ROOT, 'typings', 'berry-mcp.d.ts'), 'utf8');
    const block = /\binterface Tools \{([\s\S]*?)\n {2}\}/.exec(typings)?.[1] ?? '';
    const names = new Set([...block.matchAll(/^ {4}(mcp_\w+)[<(]/gm)].map((m) => m[1]!));
    assert.ok(names.size >= 5, `found ${[...names].join(', ')}`);
    const run = await berry(['help', 'run'], { cwd });
    for (const name of names) assert.match(run.stdout, new RegExp(`tools\\.${name}\\b`), name);
  });

  it('a usage error is one line and points at the command help, with "did you mean"', async () => {
    const cases: [string[], RegExp][] = [
      [['lsit'], /^berry-mcp: unknown command "lsit"\. Did you mean "list"\?\nsee `berry-mcp help`\n$/],
      [['run', 'x.js', '--tiemout', '3'], /^berry-mcp: unknown option "--tiemout"\. Did you mean --timeout\?\nsee `berry-mcp help run`\n$/],
      [['call', 'a'], /^berry-mcp: call needs SERVER TOOL\nsee `berry-mcp help call`\n$/],
      [['typings', '--memory', '64'], /^berry-mcp: typings does not take --memory\nsee `berry-mcp help typings`\n$/],
      [['run', '-', '--timeout', 'soon'], /^berry-mcp: --timeout needs a number of seconds .*got "soon"\nsee `berry-mcp help run`\n$/],
      [['run', '-', '--memory', '4'], /^berry-mcp: --memory needs a number of MB from 8 .*\nsee `berry-mcp help run`\n$/],
      [['list', '--config'], /^berry-mcp: --config needs a value \(PATH\)\nsee `berry-mcp help list`\n$/],
      [[], /^berry-mcp: missing command\nsee `berry-mcp help`\n$/],
    ];
    for (const [args, expected] of cases) {
      const result = await berry(args, { cwd });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, expected, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
    }
  });

  it('--help loads no MCP SDK, Ajv, undici, ssh2, isolated-vm or sandbox; run of text(1) loads no SDK, Ajv, undici or ssh2', async () => {
    const tmp = tempDir();
    try {
      const log = join(tmp.dir, 'imports.log');
      const env = { NODE_OPTIONS: `--import=${join(FIXTURES_DIR, 'import-log.mjs')}`, BERRY_IMPORT_LOG: log };
      const help = await berry(['--help'], { cwd, env });
      assert.equal(help.code, 0, help.stderr);
      const helpImports = readFileSync(log, 'utf8');
      assert.match(helpImports, /dist\/src\/cli\/launch\.cjs/, 'the log works (the bundled command)');
      assert.doesNotMatch(helpImports, /@modelcontextprotocol|node_modules\/ajv|undici|ssh2|isolated-vm/);
      rmSync(log);
      // berry-mcp's own modules are one file in the bundle: the unbundled entry shows which of them load.
      const unbundled = await runProcess(process.execPath, [join(PROJECT_ROOT, 'dist', 'src', 'bin.js'), '--help'], { cwd, env });
      assert.equal(unbundled.code, 0, unbundled.stderr);
      const ownImports = readFileSync(log, 'utf8');
      assert.match(ownImports, /dist\/src\/cli\/main\.js/, 'the log works');
      assert.doesNotMatch(ownImports, /@modelcontextprotocol|node_modules\/ajv|undici|ssh2|isolated-vm|runtime\/run-script/);
      rmSync(log);
      const run = await berry(['run', '-', '--config', join(tmp.dir, 'none.json')], { cwd: tmp.dir, env, input: 'text(1)' });
      // An explicit --config that is missing is refused before the run; use the default one instead.
      assert.equal(run.code, 2);
      rmSync(log, { force: true });
      const ran = await berry(['run', '-'], { cwd: tmp.dir, env: { ...env, HOME: tmp.dir }, input: 'text(1)' });
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout, '1\n');
      const runImports = readFileSync(log, 'utf8');
      // isolated-vm 5 requires its addon itself, 6 and 7 through node-gyp-build.
      assert.match(runImports, /require (\.\/out\/isolated_vm|node-gyp-build)/, 'CommonJS loads are logged too');
      assert.doesNotMatch(runImports, /@modelcontextprotocol|node_modules\/ajv|undici|ssh2/);
      // The control: a command that connects does load the SDK, and the log sees it.
      rmSync(log);
      writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
      const list = await berry(['list', '--config', 'mcp.json'], { cwd: tmp.dir, env });
      assert.equal(list.code, 0, list.stderr);
      assert.match(readFileSync(log, 'utf8'), /@modelcontextprotocol\/sdk/);
    } finally {
      tmp.cleanup();
    }
  });
});
