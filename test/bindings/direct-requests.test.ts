// tools/call beside the SDK's funnel (src/bindings/connection/direct-requests.ts), against the real fault
// server over stdio: what the SDK did for a call must still happen, and the SDK's own requests on
// the same connection must not notice.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMcpHost, type McpHost } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry, whoami } from '../support/fixture-servers.js';
import { v2ServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor } from '../support/wait.js';

const FIRST_ID = 2 ** 30;

describe('direct tools/call on a 2025-era stdio connection', function () {
  this.timeout(30_000);
  let cancelLog: string;
  const t = useTestHost<McpHost>(
    (dir) => {
      cancelLog = join(dir, 'cancelled.log');
      return {
        ok: faultEntry([], { env: { FIXTURE_CANCEL_LOG: cancelLog } }),
        quick: faultEntry([], { env: { FIXTURE_CANCEL_LOG: cancelLog }, timeout: 0.4 }),
        paced: faultEntry([], { timeout: 1 }),
        modern: { command: process.execPath, args: [v2ServerPath, '--modern-only'] },
      };
    },
    { create: createMcpHost, options: { configPath: 'mcp.json' } },
  );
  const raw = (server: string, line: string) => t.host.call({ server, tool: 'reply_raw', arguments: { line } });
  const cancelled = (): string[] =>
    existsSync(cancelLog)
      ? readFileSync(cancelLog, 'utf8')
          .split('\n')
          .filter((line) => line.startsWith('cancelled'))
      : [];
  const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

  it('goes out with an id the SDK never issues, and leaves the SDK its own requests', async () => {
    const answer = await raw('ok', '{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"$ID"}]}}');
    assert.ok(Number(textOf(answer)) >= FIRST_ID, `id ${textOf(answer)}`);
    const connection = await t.host.withServer('ok', async (c) => c);
    assert.ok(connection.direct, 'a 2025 stdio connection calls directly');
    // The SDK's requests (tools/list, here not cached: a fresh listing) still work beside it.
    const [listed, echoed] = await Promise.all([connection.client.listTools(), t.host.call({ server: 'ok', tool: 'echo', arguments: { text: 'x' } })]);
    assert.ok(listed.tools.some((tool) => tool.name === 'echo'));
    assert.equal(textOf(echoed), 'x');
  });

  it('reads the result as the SDK does: a stray resultType dropped, content defaulted', async () => {
    const answer = await raw('ok', '{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","structuredContent":{"n":1}}}');
    assert.deepEqual(answer, { content: [], structuredContent: { n: 1 } });
  });

  it('fails a malformed result and a JSON-RPC error for that call only; the process stays', async () => {
    const pid = whoami(await t.host.call({ server: 'ok', tool: 'whoami', arguments: {} })).pid;
    await assert.rejects(raw('ok', '{"jsonrpc":"2.0","id":$ID,"result":{"content":"nope"}}'), (error: unknown) => {
      assert.ok(isBerryError(error));
      assert.equal(error.code, 'MCP_PROTOCOL_ERROR');
      assert.match(error.message, /malformed result: content: .*The connection stays open/);
      return true;
    });
    await assert.rejects(t.host.call({ server: 'ok', tool: 'rpc_error', arguments: { code: -32042, message: 'no such thing' } }), (error: unknown) => {
      assert.ok(isBerryError(error));
      assert.match(error.message, /returned error -32042: no such thing/);
      return true;
    });
    assert.equal(whoami(await t.host.call({ server: 'ok', tool: 'whoami', arguments: {} })).pid, pid);
  });

  it('answers concurrent calls by id, whatever order they come back in', async () => {
    const [slow, fast] = await Promise.all([
      t.host.call({ server: 'ok', tool: 'sleep', arguments: { ms: 300 } }),
      t.host.call({ server: 'ok', tool: 'sleep', arguments: { ms: 10 } }),
    ]);
    assert.equal(textOf(slow), 'slept 300');
    assert.equal(textOf(fast), 'slept 10');
  });

  it('lets progress reset the timeout, and reports each step', async () => {
    const steps: number[] = [];
    // 5 × 150 ms is well past the 0.4 s timeout; each step resets it.
    const result = await t.host.call(
      { server: 'quick', tool: 'progress', arguments: { steps: 5, intervalMs: 150 } },
      { onProgress: (event) => steps.push(event.progress) },
    );
    assert.match(textOf(result), /done/);
    assert.deepEqual(steps, [1, 2, 3, 4, 5]);
  });

  it('times out without progress and tells the server which request it gave up', async () => {
    await assert.rejects(t.host.call({ server: 'quick', tool: 'hang', arguments: {} }), (error: unknown) => {
      assert.ok(isBerryError(error));
      assert.equal(error.code, 'MCP_TIMEOUT');
      return true;
    });
    await waitFor(() => cancelled().some((line) => / Request timed out$/.test(line)), 5000, 'the cancellation');
    const id = Number(/^cancelled (\d+) /.exec(cancelled().find((line) => / Request timed out$/.test(line)) ?? '')?.[1]);
    assert.ok(id >= FIRST_ID, `cancelled id ${id}`);
  });

  it('gives each call its own timeout from when it was sent, under the one timer of the connection', async () => {
    // 1 s each: the first call is answered at 0.6 s; the second starts then and ends at 1.2 s,
    // past the first one's deadline (when the timer wakes) and well within its own (1.6 s).
    await t.host.call({ server: 'paced', tool: 'whoami', arguments: {} });
    await t.host.call({ server: 'paced', tool: 'sleep', arguments: { ms: 600 } });
    assert.equal(textOf(await t.host.call({ server: 'paced', tool: 'sleep', arguments: { ms: 600 } })), 'slept 600');
    // Started together, the quick one answered, the other one still times out at its own deadline.
    const started = Date.now();
    const [quick, stuck] = await Promise.allSettled([
      t.host.call({ server: 'quick', tool: 'sleep', arguments: { ms: 50 } }),
      t.host.call({ server: 'quick', tool: 'hang', arguments: {} }),
    ]);
    const elapsed = Date.now() - started;
    assert.equal(quick.status, 'fulfilled');
    assert.ok(stuck.status === 'rejected' && isBerryError(stuck.reason) && stuck.reason.code === 'MCP_TIMEOUT', String(stuck.status));
    assert.ok(elapsed >= 390 && elapsed < 3000, `timed out after ${elapsed} ms`);
  });

  it('cancels on the caller signal: MCP_CANCELLED here, notifications/cancelled there', async () => {
    const controller = new AbortController();
    const call = t.host.call({ server: 'ok', tool: 'sleep', arguments: { ms: 10_000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await assert.rejects(call, (error: unknown) => isBerryError(error) && error.code === 'MCP_CANCELLED');
    await waitFor(() => cancelled().length >= 2, 5000, 'the second cancellation');
    assert.equal(textOf(await t.host.call({ server: 'ok', tool: 'echo', arguments: { text: 'after' } })), 'after');
  });

  it('fails the calls in flight when the process dies, and the next call starts a new one', async () => {
    const pid = whoami(await t.host.call({ server: 'ok', tool: 'whoami', arguments: {} })).pid;
    const waiting = t.host.call({ server: 'ok', tool: 'sleep', arguments: { ms: 10_000 } });
    await assert.rejects(Promise.all([waiting, t.host.call({ server: 'ok', tool: 'crash', arguments: {} })]), (error: unknown) => {
      assert.ok(isBerryError(error));
      assert.equal(error.code, 'MCP_TRANSPORT_CLOSED');
      return true;
    });
    await assert.rejects(waiting, (error: unknown) => isBerryError(error) && error.code === 'MCP_TRANSPORT_CLOSED');
    assert.notEqual(whoami(await t.host.call({ server: 'ok', tool: 'whoami', arguments: {} })).pid, pid);
  });

  it('is not used in the 2026 era: those calls stay with the SDK', async () => {
    const connection = await t.host.withServer('modern', async (c) => c);
    assert.equal(connection.protocolVersion, '2026-07-28');
    assert.equal(connection.direct, undefined);
    const result = await t.host.call({ server: 'modern', tool: 'echo', arguments: { text: 'm' } });
    assert.ok(result.content.length > 0);
  });
});
