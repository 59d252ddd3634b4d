import assert from 'node:assert/strict';
import { run, type StdioServe, serveStdio, texts } from '../support/berry-serve.js';
import { everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

describe('berry-mcp serve: TypeScript scripts, run in a worker process', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let serve: StdioServe;

  before(async () => {
    tmp = tempDir('berry-serve-ts-');
    writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
    serve = await serveStdio(['--config', 'mcp.json', '--workers', '1'], { cwd: tmp.dir });
  });
  after(async () => {
    await serve?.close();
    tmp.cleanup();
  });

  it('runs a typed script, and reports an error at its own line and column', async () => {
    const ok = await run(
      serve.client,
      'type Sum = { a: number; b: number };\nconst args: Sum = { a: 2, b: 3 };\nconst r = await tools.mcp_call({ server: "everything", tool: "get-sum", arguments: args });\nreturn (r.content[0] as { text: string }).text;',
    );
    assert.equal(ok.isError, undefined, texts(ok).join('\n'));
    assert.match(texts(ok).join('\n'), /5/);
    const failed = await run(serve.client, 'const a: number = 1;\nconst b: { c?: { d: number } } = {};\n  b.c!.d;');
    assert.equal(failed.isError, true);
    const error = failed.structuredContent?.['error'] as { code: string; line: number; column: number };
    assert.deepEqual([error.code, error.line, error.column], ['SCRIPT_ERROR', 3, 8]);
    const unsupported = await run(serve.client, 'const n: number = 1;\nenum E { A }');
    assert.match(texts(unsupported).join('\n'), /SCRIPT_TYPESCRIPT_UNSUPPORTED\] at line 2, column 1: TypeScript enum at line 2:1 needs code generation/);
  });
});
