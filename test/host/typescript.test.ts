import assert from 'node:assert/strict';
import { everythingPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

describe('host.run: TypeScript scripts against a real server', function () {
  this.timeout(60_000);
  const t = useTestHost(() => ({ docs: { command: process.execPath, args: [everythingPath] } }));

  it('runs a typed script that calls tools, and image() takes the block as mcp_call returns it', async () => {
    const record = await t.host.run(
      [
        'interface Echo { content: Array<{ type: string; text?: string }> }',
        'const echo = (await tools.mcp_call({ server: "docs", tool: "echo", arguments: { message: "typed" } })) as Echo;',
        'const first: string = echo.content[0]!.text!;',
        'const tiny = await tools.mcp_call({ server: "docs", tool: "get-tiny-image", arguments: {} });',
        'const block = tiny.content.find((b) => b.type === "image") as { data: string; mimeType: string };',
        'image({ data: block.data, mimeType: block.mimeType });',
        'return first satisfies string;',
      ].join('\n'),
    );
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.equal(record.result, 'Echo: typed');
    assert.equal(record.outputs[0]?.type, 'image');
    assert.equal(record.calls, 2);
  });

  it("puts a failed call's error at the script's own line and column", async () => {
    const code = [
      'type Args = {',
      '  message: string;',
      '};',
      'const args: Args = { message: "x" };',
      'await tools.mcp_call({ server: "docs", tool: "echo", arguments: args });',
      'const missing: string = "nope";',
      '    await tools.mcp_call({ server: "docs", tool: missing, arguments: {} as Record<string, unknown> });',
    ].join('\n');
    const record = await t.host.run(code);
    assert.equal(record.error?.code, 'MCP_UNKNOWN_TOOL');
    assert.deepEqual({ line: record.error?.line, column: record.error?.column }, { line: 7, column: 5 });
    assert.equal(record.calls, 2);
  });

  it('refuses an enum before any call is made', async () => {
    const record = await t.host.run('await tools.mcp_call({ server: "docs", tool: "echo", arguments: { message: "x" } });\nenum Mode { A, B }');
    assert.equal(record.error?.code, 'SCRIPT_TYPESCRIPT_UNSUPPORTED');
    assert.equal(record.error?.line, 2);
    assert.equal(record.calls, 0);
  });
});
