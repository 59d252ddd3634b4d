import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesystemPath, FIXTURES_DIR } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

const MB = 1024 * 1024;

/**
 * Results larger than the run's memory, from real servers over stdio: each kind of answer a
 * script receives fails its own call, the connection stays pooled, the run and the next run go on.
 * Before the bound each of these aborted the process (ivm::FatalRuntimeError).
 */
describe('host.run: results larger than the run memory', function () {
  this.timeout(120_000);

  const t = useTestHost(
    (dir) => {
      writeFileSync(join(dir, 'big.txt'), 'a'.repeat(24 * MB));
      writeFileSync(join(dir, 'small.txt'), 'small');
      return {
        large: { command: process.execPath, args: [join(FIXTURES_DIR, 'large-server.mjs')] },
        files: { command: process.execPath, args: [filesystemPath, dir] },
      };
    },
    { options: { configPath: 'mcp.json' }, prefix: 'berry-large-' },
  );

  it('mcp_call, mcp_read and mcp_prompt of 24 MB at 16 MB each fail with MCP_RESULT_TOO_LARGE; the same connection answers next', async () => {
    const record = await t.host.run(
      `
      const pid = async () => (await tools.mcp_call({ server: "large", tool: "whoami", arguments: {} })).content[0].text;
      const before = await pid();
      const failures = [];
      const attempt = async (what, op) => { try { await op(); failures.push([what, "delivered"]); } catch (e) { failures.push([what, e.code, e.message]); } };
      await attempt("call", () => tools.mcp_call({ server: "large", tool: "big", arguments: { bytes: ${24 * MB} } }));
      await attempt("read", () => tools.mcp_read({ server: "large", uri: "big://${24 * MB}" }));
      await attempt("prompt", () => tools.mcp_prompt({ server: "large", name: "big", arguments: { bytes: "${24 * MB}" } }));
      const echoed = await tools.mcp_call({ server: "large", tool: "echo", arguments: { text: "still here" } });
      return { before, after: await pid(), failures, echoed: echoed.content[0].text };`,
      { memoryLimitMb: 16 },
    );
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const result = record.result as { before: string; after: string; failures: [string, string, string][]; echoed: string };
    assert.deepEqual(
      result.failures.map(([what, code]) => [what, code]),
      [
        ['call', 'MCP_RESULT_TOO_LARGE'],
        ['read', 'MCP_RESULT_TOO_LARGE'],
        ['prompt', 'MCP_RESULT_TOO_LARGE'],
      ],
    );
    for (const [what, , message] of result.failures) assert.match(message, /of its 16 MB memory limit/, what);
    assert.equal(result.echoed, 'still here');
    // One server process throughout: a result too large for the run is no fault of the connection.
    assert.equal(result.after, result.before);
    const next = await t.host.run('return (await tools.mcp_call({ server: "large", tool: "whoami", arguments: {} })).content[0].text', {
      memoryLimitMb: 16,
    });
    assert.equal(next.result, result.before);
  });

  it('the reference filesystem server reading a file larger than the memory limit: that call fails, the next read works', async () => {
    const record = await t.host.run(
      `
      let code;
      try { await tools.mcp_call({ server: "files", tool: "read_text_file", arguments: { path: ${JSON.stringify(join(t.dir, 'big.txt'))} } }); }
      catch (e) { code = e.code; }
      const small = await tools.mcp_call({ server: "files", tool: "read_text_file", arguments: { path: ${JSON.stringify(join(t.dir, 'small.txt'))} } });
      return [code, small.content[0].text];`,
      { memoryLimitMb: 16 },
    );
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.deepEqual(record.result, ['MCP_RESULT_TOO_LARGE', 'small']);
    // Under the limit the same file arrives whole.
    const whole = await t.host.run(
      `return (await tools.mcp_call({ server: "files", tool: "read_text_file", arguments: { path: ${JSON.stringify(join(t.dir, 'big.txt'))} } })).content[0].text.length`,
      { memoryLimitMb: 128 },
    );
    assert.equal(whole.ok, true, JSON.stringify(whole.error));
    assert.equal(whole.result, 24 * MB);
  });
});
