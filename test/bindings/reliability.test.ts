import assert from 'node:assert/strict';
import { createMcpHost, type LogEvent, type McpHost } from '../../src/bindings/index.js';
import { isBerryError, type BerryError } from '../../src/common/errors.js';
import { faultEntry, whoami } from '../support/fixture-servers.js';
import { processAlive } from '../support/processes.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor } from '../support/wait.js';

const MiB = 1024 * 1024;

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

/** Asserts a rejection with `code` and returns the error for further checks. */
async function rejection(promise: Promise<unknown>, code: string): Promise<BerryError> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  );
  assert.ok(isBerryError(error), String(error));
  assert.equal(error.code, code, error.message);
  return error;
}

describe('one bad answer fails one call; a dead transport is replaced', function () {
  this.timeout(60_000);
  let capped: McpHost;
  const events: LogEvent[] = [];
  const pid = async (h: McpHost, server: string): Promise<number> => whoami(await h.call({ server, tool: 'whoami', arguments: {} })).pid;

  const t = useTestHost(
    {
      ok: faultEntry(),
      quick: faultEntry([], { timeout: 4 }),
      // Outlives stdin EOF, EPIPE and SIGTERM: only SIGKILL of its group ends it.
      stubborn: faultEntry(['--ignore-stdin-eof', '--ignore-sigterm']),
    },
    { create: createMcpHost, options: { configPath: 'mcp.json', onLog: (e) => events.push(e) } },
  );

  before(() => {
    capped = createMcpHost({ cwd: t.dir, configPath: 'mcp.json', maxMessageBytes: MiB, maxArgumentBytes: 1000 });
  });

  after(async () => {
    await capped.close();
  });

  it('a 100 MB result over stdio comes back intact (past the SDK reader 10 MiB limit)', async () => {
    const bytes = 100 * 1000 * 1000;
    const result = await t.host.call({ server: 'ok', tool: 'big', arguments: { bytes } });
    const text = textOf(result);
    assert.equal(text.length, bytes);
    assert.ok(/^x+$/.test(text.slice(0, 1000)) && /^x+$/.test(text.slice(-1000)));
    assert.equal(textOf(await t.host.call({ server: 'ok', tool: 'echo', arguments: { text: 'after' } })), 'after');
  });

  it('a message over maxMessageBytes fails with MCP_MESSAGE_TOO_LARGE, stops even a stubborn server, and the next call reconnects', async () => {
    const before = await pid(capped, 'stubborn');
    const inFlight = rejection(capped.call({ server: 'stubborn', tool: 'sleep', arguments: { ms: 20_000 } }), 'MCP_MESSAGE_TOO_LARGE');
    const error = await rejection(capped.call({ server: 'stubborn', tool: 'big', arguments: { bytes: 2 * MiB } }), 'MCP_MESSAGE_TOO_LARGE');
    assert.match(error.message, /at least \d+ bytes, over the limit of 1048576 bytes \(maxMessageBytes\)/);
    assert.match(error.message, /next operation reconnects/);
    await inFlight;
    await waitFor(() => !processAlive(before), 5000, 'the stubborn server to be killed');
    const after = await pid(capped, 'stubborn');
    assert.notEqual(after, before);
  });

  it('16 MB on stdout without a newline: over the cap it is MCP_MESSAGE_TOO_LARGE; under it the call times out and the blocked transport is replaced', async () => {
    await rejection(capped.call({ server: 'ok', tool: 'stdout_raw', arguments: { bytes: 16 * MiB } }), 'MCP_MESSAGE_TOO_LARGE');
    assert.ok((await pid(capped, 'ok')) > 0);
    const before = await pid(t.host, 'quick');
    const error = await rejection(t.host.call({ server: 'quick', tool: 'stdout_raw', arguments: { bytes: 16 * MiB } }), 'MCP_TRANSPORT_CLOSED');
    assert.match(error.message, /did not answer within 4 s.*16777216 bytes without a newline has blocked stdout/s);
    assert.notEqual(await pid(t.host, 'quick'), before, 'no later answer could pass that line: a new server');
  });

  it('a malformed result (content not an array) fails that call with a one-line MCP_PROTOCOL_ERROR; the connection and its other calls live', async () => {
    const before = await pid(t.host, 'ok');
    const other = t.host.call({ server: 'ok', tool: 'sleep', arguments: { ms: 300 } });
    const error = await rejection(t.host.call({ server: 'ok', tool: 'reply_raw', arguments: { result: { content: 'not-an-array' } } }), 'MCP_PROTOCOL_ERROR');
    assert.match(error.message, /malformed result: content: /);
    assert.doesNotMatch(error.message, /\n|"code":|\[\s*\{/);
    assert.equal(textOf(await other), 'slept 300');
    assert.equal(await pid(t.host, 'ok'), before);
  });

  it('a response that is not even a JSON-RPC message fails its call at once, not at the timeout, and is logged', async () => {
    const before = await pid(t.host, 'ok');
    const started = Date.now();
    await rejection(
      t.host.call({ server: 'ok', tool: 'reply_raw', arguments: { line: '{"jsonrpc":"2.0","id":$ID,"result":"not an object"}' } }),
      'MCP_PROTOCOL_ERROR',
    );
    assert.ok(Date.now() - started < 5000);
    assert.equal(await pid(t.host, 'ok'), before);
    assert.ok(events.some((e) => e.server === 'ok' && e.kind === 'error' && /invalid message on stdout/.test(e.message)));
  });

  it('a JSON-RPC error -32000 from the server is its answer, not a dead transport', async () => {
    const before = await pid(t.host, 'ok');
    const error = await rejection(
      t.host.call({ server: 'ok', tool: 'rpc_error', arguments: { code: -32000, message: 'Connection closed' } }),
      'MCP_PROTOCOL_ERROR',
    );
    assert.equal((error as { rpcCode?: number }).rpcCode, -32000);
    assert.equal(await pid(t.host, 'ok'), before);
  });

  it('a JSON-RPC error -32001 from the server is its answer, not our timeout', async () => {
    const error = await rejection(
      t.host.call({ server: 'ok', tool: 'rpc_error', arguments: { code: -32001, message: 'upstream timed out' } }),
      'MCP_PROTOCOL_ERROR',
    );
    assert.match(error.message, /returned error -32001: upstream timed out$/);
  });

  it('names a JSON-RPC error code once, not "error -32077: MCP error -32077: …"', async () => {
    const error = await rejection(
      t.host.call({ server: 'ok', tool: 'rpc_error', arguments: { code: -32077, message: 'quota exhausted' } }),
      'MCP_PROTOCOL_ERROR',
    );
    assert.match(error.message, /returned error -32077: quota exhausted$/);
    assert.doesNotMatch(error.message, /MCP error/);
  });

  it('arguments over maxArgumentBytes or not serializable are MCP_INVALID_ARGUMENT before anything is sent', async () => {
    const before = await pid(capped, 'ok');
    const big = await rejection(capped.call({ server: 'ok', tool: 'echo', arguments: { text: 'x'.repeat(2000) } }), 'MCP_INVALID_ARGUMENT');
    assert.match(big.message, /2011 bytes as JSON, over the limit of 1000 bytes \(maxArgumentBytes\)/);
    // Counted in UTF-8 bytes, not characters: 400 euro signs are 1,200 bytes.
    const wide = await rejection(capped.call({ server: 'ok', tool: 'echo', arguments: { text: '€'.repeat(400) } }), 'MCP_INVALID_ARGUMENT');
    assert.match(wide.message, /1211 bytes as JSON/);
    // Just under the limit passes, however much larger its escaped worst case could have been.
    assert.ok((await capped.call({ server: 'ok', tool: 'echo', arguments: { text: 'x'.repeat(980) } })).content.length > 0);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 6000; i++) deep = { d: deep };
    const cases: [Record<string, unknown>, RegExp][] = [
      [cyclic, /cycle/],
      [{ n: 10n }, /BigInt/],
      [deep, /nested too deeply|too large/],
    ];
    for (const [args, reason] of cases) {
      const error = await rejection(t.host.call({ server: 'ok', tool: 'echo', arguments: args }), 'MCP_INVALID_ARGUMENT');
      assert.match(error.message, reason);
      assert.match(error.message, /Nothing was sent/);
    }
    const hostDefault = await rejection(t.host.call({ server: 'ok', tool: 'echo', arguments: { text: 'x'.repeat(5 * MiB) } }), 'MCP_INVALID_ARGUMENT');
    assert.match(hostDefault.message, /over the limit of 4194304 bytes/);
    assert.equal(await pid(capped, 'ok'), before);
  });

  it('stdout closed while the process lives ends the transport: in-flight calls fail at once, the server is stopped, the next call reconnects', async () => {
    const before = await pid(t.host, 'stubborn');
    const started = Date.now();
    const inFlight = rejection(t.host.call({ server: 'stubborn', tool: 'sleep', arguments: { ms: 20_000 } }), 'MCP_TRANSPORT_CLOSED');
    const error = await rejection(t.host.call({ server: 'stubborn', tool: 'close_stdout', arguments: {} }), 'MCP_TRANSPORT_CLOSED');
    assert.match(error.message, /closed its stdout/);
    await inFlight;
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    await waitFor(() => !processAlive(before), 5000, 'the server to be stopped');
    assert.notEqual(await pid(t.host, 'stubborn'), before);
  });

  it('a server that stops reading its stdin while running is a dead transport: the next call fails at once and the one after reconnects', async () => {
    const before = await pid(t.host, 'stubborn');
    assert.equal(textOf(await t.host.call({ server: 'stubborn', tool: 'close_stdin', arguments: {} })), 'stdin closed');
    const started = Date.now();
    const error = await rejection(t.host.call({ server: 'stubborn', tool: 'echo', arguments: { text: 'lost' } }), 'MCP_TRANSPORT_CLOSED');
    assert.match(error.message, /stopped reading its stdin/);
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    await waitFor(() => !processAlive(before), 5000, 'the server to be stopped');
    assert.notEqual(await pid(t.host, 'stubborn'), before);
  });

  it('a server that stops reading its stdin costs no listener per waiting message, and its calls time out', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      assert.equal(textOf(await t.host.call({ server: 'quick', tool: 'stop_reading', arguments: {} })), 'paused');
      const text = 'x'.repeat(100_000);
      const calls = Array.from({ length: 20 }, () => rejection(t.host.call({ server: 'quick', tool: 'echo', arguments: { text } }), 'MCP_TIMEOUT'));
      await Promise.all(calls);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.map((w) => w.message),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('an onLog that throws loses its events, never the host or the call', async () => {
    const throwing = createMcpHost({
      cwd: t.dir,
      configPath: 'mcp.json',
      onLog: () => {
        throw new Error('log sink failed');
      },
    });
    try {
      const result = await throwing.call({ server: 'ok', tool: 'stderr_flood', arguments: { bytes: 100_000 } });
      assert.equal(textOf(result), 'flooded 100000');
      await rejection(throwing.call({ server: 'ok', tool: 'crash', arguments: {} }), 'MCP_TRANSPORT_CLOSED');
      assert.equal(textOf(await throwing.call({ server: 'ok', tool: 'echo', arguments: { text: 'alive' } })), 'alive');
    } finally {
      await throwing.close();
    }
  });

  it('rejects byte limits it cannot honour', () => {
    assert.throws(() => createMcpHost({ cwd: t.dir, maxMessageBytes: 0 }), /maxMessageBytes/);
    assert.throws(() => createMcpHost({ cwd: t.dir, maxMessageBytes: 2 ** 30 }), /maxMessageBytes/);
    assert.throws(() => createMcpHost({ cwd: t.dir, maxArgumentBytes: 1.5 }), /maxArgumentBytes/);
  });
});
