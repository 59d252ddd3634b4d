import assert from 'node:assert/strict';
import { createHost, type Host } from '../../src/index.js';
import { everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

// createHost({ maxArgumentBytes }) is the cap of every run's `tools.*` calls too: a larger argument
// fails in the sandbox, before it crosses to the host (record.calls counts what crossed).
describe('host.run: the host maxArgumentBytes reaches every run', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let host: Host;

  before(() => {
    tmp = tempDir();
    writeConfig(tmp.dir, { docs: { command: process.execPath, args: [everythingPath] } });
    host = createHost({ cwd: tmp.dir, configPath: 'mcp.json', maxArgumentBytes: 200 });
  });

  after(async () => {
    await host.close();
    tmp.cleanup();
  });

  for (const [fn, request] of [
    ['mcp_call', '{ server: "docs", tool: "echo", arguments: { message: "x".repeat(500) } }'],
    ['mcp_prompt', '{ server: "docs", name: "simple-prompt", arguments: { note: "x".repeat(500) } }'],
  ] as const) {
    it(`refuses a ${fn} argument larger than the host's limit in the sandbox, before it crosses`, async () => {
      const record = await host.run(`
try { await tools.${fn}(${request}); return 'sent'; } catch (e) { return e.code; }
`);
      assert.equal(record.ok, true, JSON.stringify(record.error));
      assert.equal(record.result, 'MCP_INVALID_ARGUMENT');
      assert.equal(record.calls, 0);
    });
  }

  it('lets a smaller argument through, and a run may set its own limit', async () => {
    const small = await host.run(`return (await tools.mcp_call({ server: "docs", tool: "echo", arguments: { message: "hi" } })).content[0].text;`);
    assert.equal(small.ok, true, JSON.stringify(small.error));
    assert.equal(small.result, 'Echo: hi');
    // The run's own, larger cap lets the call cross; the MCP host still holds its own.
    const own = await host.run(
      `try { await tools.mcp_call({ server: "docs", tool: "echo", arguments: { message: "x".repeat(500) } }); return 'sent'; } catch (e) { return e.code; }`,
      { maxArgumentBytes: 10_000 },
    );
    assert.equal(own.result, 'MCP_INVALID_ARGUMENT');
    assert.equal(own.calls, 1);
  });
});
