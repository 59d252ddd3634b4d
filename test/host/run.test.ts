import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath, filesystemPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor, waitForEvent } from '../support/wait.js';

/** mocha runs with --expose-gc (.mocharc.json), so heap figures are after a full collection. */
function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  assert.ok(gc, 'run mocha with --expose-gc');
  gc();
  gc();
}

describe('host.run: scripts against real servers', function () {
  this.timeout(60_000);
  let cancelLog: string;
  let eventLog: string;

  const t = useTestHost(
    (dir) => {
      cancelLog = join(dir, 'cancel.log');
      eventLog = join(dir, 'events.log');
      return {
        docs: { command: process.execPath, args: [everythingPath] },
        files: { command: process.execPath, args: [filesystemPath, dir] },
        fault: faultEntry([], { env: { FIXTURE_CANCEL_LOG: cancelLog, FIXTURE_EVENT_LOG: eventLog } }),
      };
    },
    { options: { configPath: 'mcp.json' } },
  );

  it("runs the seed's example end to end: list, describe, call, image", async () => {
    const record = await t.host.run(`
text(await tools.mcp_list({}));
text(await tools.mcp_describe({ server: "docs", tool: "echo" }));
const result = await tools.mcp_call({ server: "docs", tool: "echo", arguments: { message: "authentication" } });
text(result);
const picture = await tools.mcp_call({ server: "docs", tool: "get-tiny-image", arguments: {} });
for (const block of picture.content) {
  if (block.type === "image") image(block);
}
return result.content[0].text;
`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.equal(record.result, 'Echo: authentication');
    assert.equal(record.calls, 4);
    const [list, describe, call, picture] = record.outputs;
    assert.ok(list?.type === 'text' && JSON.parse(list.text).servers.length === 3);
    assert.ok(describe?.type === 'text' && JSON.parse(describe.text).name === 'echo');
    assert.ok(call?.type === 'text' && call.text.includes('Echo: authentication'));
    assert.ok(picture?.type === 'image' && picture.mimeType === 'image/png' && picture.data.length > 100);
  });

  it('runs 8 parallel calls of a ~1 s tool in well under 2 s', async () => {
    await t.host.call({ server: 'fault', tool: 'echo', arguments: { text: 'warm' } });
    const record = await t.host.run(`
const started = Date.now();
await Promise.all(Array.from({ length: 8 }, () => tools.mcp_call({ server: "fault", tool: "sleep", arguments: { ms: 1000 } })));
return Date.now() - started;
`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.ok((record.result as number) < 1600, `took ${String(record.result)} ms`);
  });

  it('a 32-way fan-out shares one abort listener on the run signal (no MaxListeners warning)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const record = await t.host.run(
        'return (await Promise.all(Array.from({ length: 32 }, (_, i) => tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: String(i) } })))).length;',
      );
      assert.equal(record.result, 32, JSON.stringify(record.error));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
  });

  it('host errors reach the script as Errors with a stable code and no host internals', async () => {
    const record = await t.host.run(`
try {
  await tools.mcp_call({ server: "nope", tool: "x", arguments: {} });
} catch (error) {
  return { name: error.name, code: error.code, message: error.message, stack: String(error.stack), isError: error instanceof Error };
}
`);
    const caught = record.result as { name: string; code: string; message: string; stack: string; isError: boolean };
    assert.equal(caught.code, 'MCP_UNKNOWN_SERVER');
    assert.equal(caught.isError, true);
    assert.match(caught.message, /Configured: docs, files, fault/);
    assert.doesNotMatch(caught.stack, /\/work\/|node_modules|dist\//);
  });

  it('an uncaught tool error fails the run with its code and position', async () => {
    const record = await t.host.run(
      'const a = 1;\nawait tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "x" } });\nawait tools.mcp_call({ server: "fault", tool: "crash", arguments: {} });\n',
      { filename: 'crash.js' },
    );
    assert.equal(record.ok, false);
    assert.equal(record.error?.code, 'MCP_TRANSPORT_CLOSED');
    assert.equal(record.error?.line, 3);
    const next = await t.host.run('return (await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "again" } })).content[0].text;');
    assert.equal(next.result, 'again');
  });

  it('aborting the run cancels its in-flight call on the server', async () => {
    const ac = new AbortController();
    writeFileSync(eventLog, '');
    const running = t.host.run('await tools.mcp_call({ server: "fault", tool: "sleep", arguments: { ms: 20000 } });', {
      signal: ac.signal,
    });
    await waitForEvent(eventLog, 'started sleep');
    ac.abort();
    const record = await running;
    assert.equal(record.ok, false);
    assert.equal(record.error?.code, 'SCRIPT_ABORTED');
    await waitFor(() => existsSync(cancelLog) && readFileSync(cancelLog, 'utf8').includes('cancelled'), 5000, 'the server to see the cancel');
  });

  it('a run that times out cancels its in-flight call on the server, and the host keeps working', async () => {
    const before = existsSync(cancelLog) ? readFileSync(cancelLog, 'utf8').split('\n').length : 0;
    const record = await t.host.run('await tools.mcp_call({ server: "fault", tool: "sleep", arguments: { ms: 20000 } });', {
      timeoutMs: 500,
    });
    assert.equal(record.error?.code, 'SCRIPT_TIMEOUT');
    await waitFor(() => readFileSync(cancelLog, 'utf8').split('\n').length > before, 5000, 'a second cancel');
    const next = await t.host.run('return 1 + 1;');
    assert.equal(next.result, 2);
  });

  it('progress reported by a tool reaches onProgress', async () => {
    const seen: number[] = [];
    const record = await t.host.run('await tools.mcp_call({ server: "fault", tool: "progress", arguments: { steps: 3, intervalMs: 50 } });', {
      onProgress: (p) => seen.push(p.progress),
    });
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.deepEqual(seen, [1, 2, 3]);
  });

  it('a call whose arguments exceed maxArgumentBytes fails in the script, nothing sent; smaller ones pass', async () => {
    const record = await t.host.run(`
      const big = "x".repeat(1e6);
      const out = [];
      try { await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "a", more: Array(50).fill(big) } }); }
      catch (e) { out.push(e.code, e.message); }
      const ok = await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: big } });
      out.push(ok.content[0].text.length);
      return out;`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const [code, message, echoed] = record.result as [string, string, number];
    assert.equal(code, 'MCP_INVALID_ARGUMENT');
    assert.match(message, /more than the limit of 4194304 bytes \(maxArgumentBytes\)/);
    assert.equal(echoed, 1e6);
    assert.equal(record.calls, 1);
    const lower = await t.host.run(
      'try { await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "x".repeat(2000) } }); } catch (e) { return e.code; }',
      {
        maxArgumentBytes: 1000,
      },
    );
    assert.equal(lower.result, 'MCP_INVALID_ARGUMENT');
  });

  it('10,000 small calls leak no host memory beyond a bound (8 MB of heap across two batches)', async function () {
    this.timeout(120_000);
    const script = `
for (let i = 0; i < 5000; i++) await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "x" + i } });
return 'done';
`;
    const first = await t.host.run(script, { timeoutMs: 100_000 });
    assert.equal(first.result, 'done', JSON.stringify(first.error));
    collectGarbage();
    const baseline = process.memoryUsage().heapUsed;
    const second = await t.host.run(script, { timeoutMs: 100_000 });
    assert.equal(second.calls, 5000);
    collectGarbage();
    const growth = process.memoryUsage().heapUsed - baseline;
    assert.ok(growth < 8 * 1024 * 1024, `heap grew by ${(growth / 1024 / 1024).toFixed(1)} MB over 5,000 calls`);
  });
});
