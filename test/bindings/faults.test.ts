import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMcpHost, type LogEvent } from '../../src/bindings/index.js';
import { ServerStartError, isBerryError } from '../../src/common/errors.js';
import { faultEntry, whoami } from '../support/fixture-servers.js';
import { childPidsOf, processAlive } from '../support/processes.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor, waitForEvent } from '../support/wait.js';

describe('faults of stdio servers', function () {
  this.timeout(60_000);
  let events: LogEvent[];
  let cancelLog: string;
  let eventLog: string;

  const t = useTestHost(
    (dir) => {
      cancelLog = join(dir, 'cancelled.log');
      eventLog = join(dir, 'events.log');
      events = [];
      return {
        ok: faultEntry([], { env: { FIXTURE_CANCEL_LOG: cancelLog, FIXTURE_EVENT_LOG: eventLog } }),
        slow: faultEntry([], { timeout: 1 }),
        failstart: faultEntry(['--fail-start']),
        hangstart: faultEntry(['--hang-start'], { timeout: 1 }),
        missingcwd: faultEntry([], { cwd: join(dir, 'no-such-dir') }),
        noisy: faultEntry(['--stderr-on-start=1000000']),
      };
    },
    { create: createMcpHost, options: { configPath: 'mcp.json', onLog: (e) => events.push(e) } },
  );

  it('a crash mid-call rejects that call with the exit code and stderr; the next call works on a new process', async () => {
    const before = whoami(await t.host.call({ server: 'ok', tool: 'whoami', arguments: {} })).pid;
    await assert.rejects(t.host.call({ server: 'ok', tool: 'crash', arguments: {} }), (error: unknown) => {
      assert.ok(isBerryError(error));
      assert.equal(error.code, 'MCP_TRANSPORT_CLOSED');
      assert.match(error.message, /exited with code 7/);
      assert.match(error.message, /crashing now/);
      assert.match(error.message, /not retried/);
      return true;
    });
    const after = whoami(await t.host.call({ server: 'ok', tool: 'whoami', arguments: {} })).pid;
    assert.notEqual(after, before);
  });

  it('a hanging call hits the entry timeout and is cancelled on the server', async () => {
    const started = Date.now();
    await assert.rejects(t.host.call({ server: 'slow', tool: 'hang', arguments: {} }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_TIMEOUT', String(error));
      assert.match(error.message, /did not answer within 1 s/);
      return true;
    });
    assert.ok(Date.now() - started < 3000);
    const still = await t.host.call({ server: 'slow', tool: 'echo', arguments: { text: 'alive' } });
    assert.equal((still.content[0] as { text: string }).text, 'alive');
  });

  it('progress resets the timeout and reaches onProgress', async () => {
    const seen: number[] = [];
    const result = await t.host.call(
      { server: 'slow', tool: 'progress', arguments: { steps: 6, intervalMs: 400 } },
      { onProgress: (p) => seen.push(p.progress) },
    );
    assert.equal((result.content[0] as { text: string }).text, 'done');
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
  });

  it('progress cannot extend a call past its hard deadline (10× the timeout)', async function () {
    this.timeout(20_000);
    const started = Date.now();
    const seen: number[] = [];
    await assert.rejects(
      t.host.call({ server: 'slow', tool: 'progress', arguments: { steps: 100, intervalMs: 400 } }, { onProgress: (p) => seen.push(p.progress) }),
      (error: unknown) => {
        assert.ok(isBerryError(error) && error.code === 'MCP_TIMEOUT', String(error));
        assert.match(error.message, /hard deadline of 10 s/);
        return true;
      },
    );
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 9900 && elapsed < 13_000, `ended after ${elapsed} ms`);
    assert.ok(seen.length >= 20, 'progress kept resetting the 1 s timeout meanwhile');
  });

  it('cancellation sends notifications/cancelled and is reported as cancelled, not as a timeout', async () => {
    // Connected first: an abort during the connect would never reach the server as a cancellation.
    await t.host.call({ server: 'ok', tool: 'echo', arguments: { text: 'warm' } });
    const ac = new AbortController();
    writeFileSync(eventLog, '');
    const call = t.host.call({ server: 'ok', tool: 'sleep', arguments: { ms: 10_000 } }, { signal: ac.signal });
    await waitForEvent(eventLog, 'started sleep');
    ac.abort();
    await assert.rejects(call, {
      code: 'MCP_CANCELLED',
    });
    await waitFor(() => existsSync(cancelLog) && /cancelled /.test(readFileSync(cancelLog, 'utf8')), 5000, 'the cancel log');
  });

  it('100 MB written to stderr does not block the server', async () => {
    const result = await t.host.call({ server: 'ok', tool: 'stderr_flood', arguments: { bytes: 100 * 1024 * 1024 } });
    assert.equal((result.content[0] as { text: string }).text, `flooded ${100 * 1024 * 1024}`);
    const start = await t.host.call({ server: 'noisy', tool: 'echo', arguments: { text: 'x' } });
    assert.equal((start.content[0] as { text: string }).text, 'x');
  });

  it('a server that fails to start is reported with its command, exit code and stderr tail', async () => {
    await assert.rejects(t.host.call({ server: 'failstart', tool: 'echo', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof ServerStartError);
      assert.equal(error.code, 'MCP_CONNECT_FAILED');
      assert.equal(error.exitCode, 3);
      assert.match(error.message, /fault-server\.mjs --fail-start/);
      assert.match(error.message, /exited with code 3/);
      assert.match(error.stderrTail, /filler/);
      assert.ok(error.stderrTail.length <= 4096);
      return true;
    });
  });

  it('a server that never answers initialize fails within its timeout', async () => {
    const started = Date.now();
    await assert.rejects(t.host.call({ server: 'hangstart', tool: 'echo', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof ServerStartError, String(error));
      assert.match(error.message, /no answer to initialize within 1 s/);
      return true;
    });
    assert.ok(Date.now() - started < 4000);
  });

  it('a missing working directory is a start failure that says what to check', async () => {
    await assert.rejects(t.host.call({ server: 'missingcwd', tool: 'echo', arguments: {} }), /failed to start.*cwd/s);
  });

  it('kills escaped descendants holding the pipes when the connection closes', async () => {
    const local = createMcpHost({ cwd: t.dir, configPath: 'mcp.json' });
    const result = await local.call({ server: 'ok', tool: 'spawn_grandchild', arguments: {} });
    const { grandchildPid } = JSON.parse((result.content[0] as { text: string }).text) as { grandchildPid: number };
    assert.ok(processAlive(grandchildPid));
    const started = Date.now();
    await local.close();
    assert.ok(Date.now() - started < 3000, `close took ${Date.now() - started} ms`);
    await waitFor(() => !processAlive(grandchildPid), 2000, 'the grandchild to die');
  });

  it('streams stderr and lifecycle events to onLog', () => {
    const kinds = new Set(events.map((e) => e.kind));
    for (const kind of ['connecting', 'spawned', 'initialized', 'stderr', 'closed'] as const) assert.ok(kinds.has(kind), kind);
    assert.ok(events.some((e) => e.kind === 'initialized' && /protocol \d{4}-\d{2}-\d{2}/.test(e.message)));
  });

  it('opening and closing connections leaks no file descriptors (crashes and failed starts included)', async () => {
    const openFds = (): number => readdirSync('/proc/self/fd').length;
    const cycle = async (): Promise<void> => {
      const local = createMcpHost({ cwd: t.dir, configPath: 'mcp.json' });
      await local.call({ server: 'ok', tool: 'echo', arguments: { text: 'x' } });
      await local.call({ server: 'ok', tool: 'crash', arguments: {} }).catch(() => undefined);
      await local.call({ server: 'failstart', tool: 'echo', arguments: {} }).catch(() => undefined);
      await local.close();
    };
    await cycle();
    const before = openFds();
    for (let i = 0; i < 5; i++) await cycle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(openFds() <= before + 2, `open descriptors went from ${before} to ${openFds()}`);
  });

  it('host.close() leaves no child process', async () => {
    const local = createMcpHost({ cwd: t.dir, configPath: 'mcp.json' });
    await Promise.all([
      local.call({ server: 'ok', tool: 'echo', arguments: { text: 'a' } }),
      local.call({ server: 'noisy', tool: 'echo', arguments: { text: 'b' } }),
    ]);
    const pending = local.call({ server: 'ok', tool: 'sleep', arguments: { ms: 5000 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await t.host.close();
    await local.close();
    assert.ok(isBerryError(await pending));
    await waitFor(() => childPidsOf(process.pid).filter((pid) => processAlive(pid)).length === 0, 3000, 'no children');
  });
});
