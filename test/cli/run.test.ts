import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { berry, berryOnTty } from '../support/berry-cli.js';
import { everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

describe('berry-mcp run (as a person runs it)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;

  before(() => {
    tmp = tempDir();
    writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
  });
  after(() => tmp.cleanup());

  it('run missing.js exits 2 and says the file is not there', async () => {
    const result = await berry(['run', 'missing.js', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^berry-mcp: no script at missing\.js \(.*missing\.js does not exist\)\nsee `berry-mcp help run`\n$/);
  });

  it('streams text() and logs as the script makes them, before it ends', async () => {
    const script = [
      'text("first");',
      'console.log("logged");',
      'await tools.mcp_call({ server: "everything", tool: "trigger-long-running-operation", arguments: { duration: 2, steps: 2 } });',
      'text("second");',
    ].join('\n');
    const result = await berry(['run', '-', '--config', 'mcp.json'], { cwd: tmp.dir, input: script });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'first\nsecond\n');
    assert.equal(result.stderr, 'logged\n');
    const first = result.chunks.find((c) => c.text.includes('first'))!;
    assert.ok(result.ms - first.at > 1500, `"first" came ${Math.round(result.ms - first.at)} ms before the end`);
  });

  it('on a terminal, gives each call in flight its own labelled progress line, gone when it ends', async () => {
    const script = [
      'const op = (duration) => tools.mcp_call({ server: "everything", tool: "trigger-long-running-operation", arguments: { duration, steps: 4 } });',
      'await Promise.all([op(2), op(3)]);',
      'text("done");',
    ].join('\n');
    writeFileSync(join(tmp.dir, 'two.js'), script);
    const result = await berryOnTty(['run', 'two.js', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(result.code, 0, result.stdout);
    const label = 'everything/trigger-long-running-operation';
    // Two lines drawn at once: the first call's line, a newline, then the second's.
    assert.match(result.stdout, new RegExp(`${label} \\[[#.]+\\] \\d+%\\r?\\n${label} \\[[#.]+\\] \\d+%`));
    // Redrawn in place: the cursor goes back up over the lines before redrawing them.
    assert.match(result.stdout, /\x1b\[1A\x1b\[J/);
    // Nothing of the progress is left after the last line is erased, and the output follows.
    const tail = result.stdout.slice(result.stdout.lastIndexOf('\x1b[J') + 3);
    assert.match(tail, /^done\r?\n$/);
  });

  it('run - at a terminal says it is reading the script, which ends with Ctrl-D', async () => {
    const result = await berryOnTty(['run', '-', '--config', 'mcp.json'], { cwd: tmp.dir, typed: ['text(4)\n', '\x04'] });
    assert.equal(result.code, 0, result.stdout);
    assert.match(result.stdout, /^berry-mcp: reading the script from the terminal; end it with Ctrl-D\r?\n/);
    assert.match(result.stdout, /\n4\r?\n$/);
  });

  it('on a pipe, prints no progress at all', async () => {
    const result = await berry(['run', 'two.js', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '');
    assert.equal(result.stdout, 'done\n');
  });

  it("a failure names its position and prints the script's own frames; a script left open is reported at its last line", async () => {
    const thrown = await berry(['run', '-', '--config', 'mcp.json'], {
      cwd: tmp.dir,
      input: 'function f() {\n  null.x;\n}\nfunction g() { f(); }\ng();\n',
    });
    assert.equal(thrown.code, 1);
    assert.equal(
      thrown.stderr,
      "berry-mcp: script failed (line 2, column 8): TypeError [SCRIPT_ERROR]: Cannot read properties of null (reading 'x')\n" +
        '    at f (stdin.js:2:8)\n    at g (stdin.js:4:16)\n    at stdin.js:5:1\n',
    );
    const open = await berry(['run', '-', '--json', '--config', 'mcp.json'], {
      cwd: tmp.dir,
      input: 'const a = 1;\nif (a) {\n  text("x");\n  text("y");\nconst b = 2;\ntext(b);\n',
    });
    const record = JSON.parse(open.stdout) as { error: { message: string; line: number } };
    assert.equal(record.error.message, 'unexpected end of script: `{` opened at line 2 is not closed');
    assert.equal(record.error.line, 6);
  });

  it('runs a TypeScript file, its failure at the line and column as written', async () => {
    writeFileSync(
      join(tmp.dir, 'typed.ts'),
      'interface Reply { content: { text?: string }[] }\nconst r = (await tools.mcp_call({ server: "everything", tool: "echo", arguments: { message: "ts" } })) as Reply;\ntext(r.content[0]!.text as string);\n',
    );
    const ok = await berry(['run', 'typed.ts', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, 'Echo: ts\n');
    writeFileSync(join(tmp.dir, 'broken.ts'), 'const a: number = 1;\nconst o: { p?: { q: number } } = {};\nreturn o.p!.q;\n');
    const failed = await berry(['run', 'broken.ts', '--config', 'mcp.json'], { cwd: tmp.dir });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /script failed \(line 3, column 13\): TypeError/);
  });

  it('a limit is named by its flag: --timeout, in seconds', async () => {
    const human = await berry(['run', '-', '--timeout', '0.5', '--config', 'mcp.json'], { cwd: tmp.dir, input: 'while (true) {}' });
    assert.equal(human.code, 1);
    assert.match(human.stderr, /time limit of 0\.5 s \(--timeout\)/);
    assert.doesNotMatch(human.stderr, /timeoutMs/);
    const json = await berry(['run', '-', '--timeout', '0.5', '--json', '--config', 'mcp.json'], { cwd: tmp.dir, input: 'while (true) {}' });
    const record = JSON.parse(json.stdout) as { error: { code: string; message: string } };
    assert.equal(record.error.code, 'SCRIPT_TIMEOUT');
    assert.match(record.error.message, /\(--timeout\)/);
  });
});
