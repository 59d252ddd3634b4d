import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { run, serveStdio, type StdioServe, texts } from '../support/berry-serve.js';
import { everythingAndFault } from '../support/fixture-servers.js';
import { memoryPath } from '../support/paths.js';
import { processAlive } from '../support/processes.js';
import type { tempDir } from '../support/temp-dir.js';
import { waitFor, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

describe('berry-mcp serve (stdio)', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let cancelLog: string;
  let eventLog: string;
  let serve: StdioServe;

  before(async () => {
    ({ tmp, cancelLog, eventLog } = everythingAndFault('berry-serve-'));
    // A budget above the default: one test prints 5,000 lines.
    serve = await serveStdio(['--config', 'mcp.json', '--max-concurrency', '2', '--output-limit', '1048576'], { cwd: tmp.dir });
  });
  after(async () => {
    await serve?.close();
    tmp.cleanup();
  });

  it('lists one tool, run, whose description teaches the API and names each server with its tools', async () => {
    assert.match(serve.client.getInstructions() ?? '', /use the run tool/);
    const { tools } = await serve.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['run'],
    );
    const tool = tools[0]!;
    assert.deepEqual(tool.inputSchema.required, ['code']);
    assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), ['code', 'timeoutSeconds']);
    const description = tool.description!;
    for (const needle of ['tools.mcp_list', 'tools.mcp_describe', 'tools.mcp_call', 'text(', 'image(', 'console.log', 'Promise.all', '`code`']) {
      assert.ok(description.includes(needle), `description mentions ${needle}`);
    }
    const serverLines = description.split('\n').filter((l) => l.startsWith('- everything ') || l.startsWith('- fault '));
    assert.equal(serverLines.length, 2, description);
    assert.match(serverLines[0]!, /^- everything \(\d+\): echo, /);
    assert.ok(description.length <= 2048, `description within Claude Code's 2,048 characters: ${description.length}`);
    // About 4 characters a token: the API part stays within ~400 tokens.
    const api = description.slice(0, description.indexOf('Servers ('));
    assert.ok(api.length <= 1600, `API text is ${api.length} characters`);
  });

  it('fans out 16 calls under Promise.all and returns text, result and logs as blocks', async () => {
    const result = await run(
      serve.client,
      `const results = await Promise.all(Array.from({ length: 16 }, (_, i) =>
         tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'm' + i } })));
       text('done ' + results.length);
       console.warn('careful');
       return results.map((r) => r.content[0].text);`,
    );
    assert.equal(result.isError, undefined);
    const [first, second, logs] = texts(result);
    assert.equal(first, 'done 16');
    assert.deepEqual(
      JSON.parse(second!),
      Array.from({ length: 16 }, (_, i) => `Echo: m${i}`),
    );
    assert.equal(logs, 'console:\n[warn] careful');
    const structured = result.structuredContent as { ok: boolean; calls: number; result: unknown; outputs?: unknown };
    assert.equal(structured.ok, true);
    assert.equal(structured.calls, 16);
    assert.equal(structured.outputs, undefined, 'outputs are not duplicated in structuredContent');
  });

  it('returns images as image blocks', async () => {
    const result = await run(
      serve.client,
      `const r = await tools.mcp_call({ server: 'everything', tool: 'get-tiny-image', arguments: {} });
       image(r.content.find((b) => b.type === 'image'));`,
    );
    const image = result.content.find((b) => b.type === 'image') as { data: string; mimeType: string } | undefined;
    assert.ok(image, JSON.stringify(result.content));
    assert.equal(image.mimeType, 'image/png');
    assert.ok(Buffer.from(image.data, 'base64').subarray(1, 4).toString() === 'PNG');
  });

  it('reports a failing script as isError with its name, code, line and column', async () => {
    const result = await run(serve.client, 'const a = 1;\nconst b = 2;\n\n  null.x;\n');
    assert.equal(result.isError, true);
    assert.equal(texts(result).at(-1), "TypeError [SCRIPT_ERROR] at line 4, column 8: Cannot read properties of null (reading 'x')");
    const error = (result.structuredContent as { error: { line: number; column: number } }).error;
    assert.equal(error.line, 4);
  });

  it('passes a host error code through to the script and the result', async () => {
    // The server's name in a variable: the check before the run leaves it to the call.
    const result = await run(serve.client, "const server = 'nope';\nawait tools.mcp_call({ server, tool: 'x' });");
    assert.equal(result.isError, true);
    assert.match(texts(result).at(-1)!, /^BerryError \[MCP_UNKNOWN_SERVER\] at line 2, column \d+: Unknown server "nope"\. Configured: everything, fault/);
  });

  it('refuses a script whose literal call names an unknown server before it runs, each mistake at its line:column', async () => {
    const result = await run(
      serve.client,
      "text('never');\nawait tools.mcp_call({ server: 'nope', tool: 'x' });\nawait tools.mcp_call({ server: 'everything', tool: 'eco' });",
    );
    assert.equal(result.isError, true);
    const [error] = texts(result);
    assert.match(error!, /^BerryError \[SCRIPT_CHECK_FAILED\] at line 2, column 32: The script was not run: .* 2 mistakes .*\n/);
    assert.match(
      error!,
      /\n- 2:32 CHECK_UNKNOWN_SERVER: Unknown server "nope"\. Configured: everything, fault .*\n- 3:52 CHECK_UNKNOWN_TOOL: Server "everything" has no tool "eco"\. Its tools, closest first: echo,/,
    );
    const structured = result.structuredContent as { ok: boolean; calls: number; error: { problems: { line: number; column: number; code: string }[] } };
    assert.deepEqual(
      structured.error.problems.map((p) => [p.line, p.column, p.code]),
      [
        [2, 32, 'CHECK_UNKNOWN_SERVER'],
        [3, 52, 'CHECK_UNKNOWN_TOOL'],
      ],
    );
    assert.equal(structured.calls, 0);
  });

  it('answers bad input with an isError result naming the field, and keeps serving', async () => {
    const call = (args: Record<string, unknown>) => serve.client.callTool({ name: 'run', arguments: args }) as Promise<CallToolResult>;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ code: 42 }, /"code" must be a string of JavaScript, got a number/],
      [{}, /"code" must be a string/],
      [{ code: 'return 1', extra: true }, /unknown argument "extra"/],
      [{ code: 'return 1', timeoutSeconds: 0 }, /"timeoutSeconds" must be a number greater than 0 and at most 300, got 0/],
      [{ code: 'return 1', timeoutSeconds: 301 }, /"timeoutSeconds" .* got 301/],
      [{ code: 'return 1', timeoutSeconds: '5' }, /"timeoutSeconds" .* got a string/],
    ];
    for (const [args, pattern] of cases) {
      const result = await call(args);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(texts(result)[0]!, pattern);
    }
    await assert.rejects(serve.client.callTool({ name: 'other', arguments: {} }), /Unknown tool "other": this server has one tool, "run"/);
    const ok = await run(serve.client, 'return 1 + 1');
    assert.deepEqual(ok.structuredContent, { ok: true, result: 2, durationMs: (ok.structuredContent as { durationMs: number }).durationMs, calls: 0 });
  });

  it('survives scripts that hit the time and memory limits', async () => {
    const loop = await run(serve.client, 'for (;;) {}', { timeoutSeconds: 1 });
    assert.match(texts(loop).at(-1)!, /\[SCRIPT_TIMEOUT\]/);
    const bomb = await run(serve.client, "await null; const a = []; for (;;) a.push('x'.repeat(1e6) + a.length);");
    assert.match(texts(bomb).at(-1)!, /\[SCRIPT_MEMORY_LIMIT\]/);
    assert.deepEqual((await run(serve.client, 'return "still here"')).structuredContent?.['result'], 'still here');
  });

  it('sends progress notifications for inner-call progress and text() while the run goes on', async () => {
    const seen: { progress: number; message?: string; at: number }[] = [];
    const result = await run(
      serve.client,
      `text('starting');
       await tools.mcp_call({ server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 1.5, steps: 3 } });
       text('finished');`,
      { onprogress: (p) => seen.push({ ...p, at: Date.now() }) },
    );
    const doneAt = Date.now();
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const messages = seen.map((p) => p.message);
    assert.equal(messages[0], 'starting');
    assert.ok(seen.filter((p) => /step|progress|\d\/3/i.test(p.message ?? '')).length >= 2, JSON.stringify(messages));
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress > seen[i - 1]!.progress, 'progress is monotonic');
    assert.ok(seen[0]!.at < doneAt, 'notifications arrive before the result');
  });

  it('survives a downstream server that dies mid-call: the script sees the error code, the next run reconnects', async () => {
    const result = await run(serve.client, `try { await tools.mcp_call({ server: 'fault', tool: 'crash', arguments: {} }); } catch (e) { return e.code; }`);
    assert.equal(result.structuredContent?.['result'], 'MCP_TRANSPORT_CLOSED');
    const again = await run(serve.client, "return (await tools.mcp_call({ server: 'fault', tool: 'echo', arguments: { text: 'back' } })).content[0].text");
    assert.equal(again.structuredContent?.['result'], 'back');
  });

  it('sends at most one progress notification per 50 ms when a script prints in a loop, the last one before the result', async () => {
    const seen: string[] = [];
    const started = performance.now();
    // 5,000 outputs: under the run's cap of 10,000 entries.
    const result = await run(serve.client, 'for (let i = 1; i <= 5000; i++) text("line " + i);', { onprogress: (p) => seen.push(p.message ?? '') });
    const elapsed = performance.now() - started;
    assert.equal(result.content.length, 5000);
    assert.ok(seen.length <= elapsed / 50 + 2, `${seen.length} notifications in ${elapsed.toFixed(0)} ms`);
    assert.equal(seen[0], 'line 1');
    assert.equal(seen.at(-1), 'line 5000');
  });

  it('cancels a run on notifications/cancelled, and the inner call is cancelled on its server', async () => {
    const controller = new AbortController();
    writeFileSync(eventLog, '');
    const pending = run(serve.client, "await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 30000 } });", {
      signal: controller.signal,
    });
    pending.catch(() => {});
    // Wait until the fault server has the sleep: its connection is up and the call sent.
    await waitForEvent(eventLog, 'started sleep');
    controller.abort('user gave up');
    // The SDK client rejects an aborted request with an McpError (RequestTimeout) carrying the reason.
    await assert.rejects(pending, { name: 'McpError', code: ErrorCode.RequestTimeout, message: /user gave up/ });
    await waitFor(() => readFileSync(cancelLog, 'utf8').includes('cancelled'), 10_000, 'the fault server to log the cancellation');
    assert.deepEqual((await run(serve.client, 'return 3')).structuredContent?.['result'], 3);
  });

  it('runs two scripts at once, each in its own isolate', async () => {
    const script = (tag: string) =>
      `globalThis.mark = '${tag}';
       const start = Date.now();
       await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 700 } });
       return { tag: globalThis.mark, start, end: Date.now() };`;
    const [a, b] = await Promise.all([run(serve.client, script('a')), run(serve.client, script('b'))]);
    const ra = a.structuredContent?.['result'] as { tag: string; start: number; end: number };
    const rb = b.structuredContent?.['result'] as { tag: string; start: number; end: number };
    assert.equal(ra.tag, 'a');
    assert.equal(rb.tag, 'b');
    assert.ok(ra.start < rb.end && rb.start < ra.end, 'the two runs overlapped');
  });

  it('queues runs past --max-concurrency in order, and a queued run can be cancelled', async () => {
    const sleeper = (ms: number) => `await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: ${ms} } }); return Date.now();`;
    writeFileSync(eventLog, '');
    const first = run(serve.client, sleeper(1200));
    const second = run(serve.client, sleeper(1200));
    await waitForEvent(eventLog, 'started sleep', { count: 2 });
    const controller = new AbortController();
    const queued = run(serve.client, 'return "never"', { signal: controller.signal });
    queued.catch(() => {});
    const fourth = run(serve.client, 'return Date.now()');
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    await assert.rejects(queued, { name: 'McpError', code: ErrorCode.RequestTimeout, message: /This operation was aborted/ });
    const [t1, t2, t4] = (await Promise.all([first, second, fourth])).map((r) => r.structuredContent?.['result'] as number);
    assert.ok(t4! >= Math.min(t1!, t2!), 'the fourth run waited for a free slot');
  });

  it('sends tools/list_changed when mcp.json gains a server, and the next tools/list names it', async () => {
    await serve.client.listTools();
    let changed = 0;
    serve.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    const config = join(tmp.dir, 'mcp.json');
    const before = JSON.parse(readFileSync(config, 'utf8')) as { mcpServers: Record<string, unknown> };
    writeConfig(tmp.dir, {
      ...before.mcpServers,
      memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(tmp.dir, 'memory.json') } },
    });
    try {
      await serve.client.ping();
      await waitFor(() => changed === 1, 5000, 'tools/list_changed');
      const { tools } = await serve.client.listTools();
      assert.match(tools[0]!.description!, /\n- memory \(\d+\): /);
      await serve.client.ping();
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(changed, 1, 'no second notification while nothing changed');
    } finally {
      writeConfig(tmp.dir, before.mcpServers);
    }
  });

  it('keeps a result within --output-limit and says so in the description', async () => {
    const local = await serveStdio(['--config', 'mcp.json', '--output-limit', '2048'], { cwd: tmp.dir });
    try {
      const { tools } = await local.client.listTools();
      assert.match(tools[0]!.description!, /output 2,048 bytes \(≈ characters; about 512 tokens\)/);
      const result = await run(local.client, 'for (let i = 0; i < 100; i++) text("x".repeat(100));');
      const all = texts(result).join('');
      assert.ok(Buffer.byteLength(all) < 2048 + 200, `${Buffer.byteLength(all)} bytes`);
      assert.match(all, /\[output truncated: limit of 2048 bytes reached\]/);
    } finally {
      await local.close();
    }
  });

  it('aborts its runs and exits when the client disconnects mid-run', async () => {
    const local = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir });
    const pid = local.transport.pid!;
    writeFileSync(cancelLog, '');
    writeFileSync(eventLog, '');
    const pending = run(local.client, "await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 30000 } });");
    pending.catch(() => {});
    await waitForEvent(eventLog, 'started sleep');
    await local.close();
    await waitFor(() => readFileSync(cancelLog, 'utf8').includes('cancelled'), 10_000, 'the inner call to be cancelled');
    await waitFor(() => !processAlive(pid), 10_000, 'serve to exit');
  });
});
