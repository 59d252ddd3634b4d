// A server whose start failed is not started again within a backoff window: operations on it fail
// at once with the recorded failure, and the servers beside it answer as usual.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMcpHost, type LogEvent, type McpHost, type ServerStatus } from '../../src/bindings/index.js';
import { StartBackoff, StartBackoffError } from '../../src/bindings/pool/start-backoff.js';
import { BerryError, ServerStartError, isBerryError } from '../../src/common/errors.js';
import { faultEntry } from '../support/fixture-servers.js';
import { closedPort } from '../support/network.js';
import { everythingPath, faultServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

/** Never answers initialize: the dead server. `timeout: 1` makes its init limit 1 s. */
const dead = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], timeout: 1 };
const everything = { command: process.execPath, args: [everythingPath] };
/** The fault server when `upFile` exists, else a server that never answers: one config, two fates. */
function switchable(upFile: string): Record<string, unknown> {
  const code = 'if (require("fs").existsSync(process.argv[1])) import(process.argv[2]); else setInterval(() => {}, 1000)';
  return { command: process.execPath, args: ['-e', code, upFile, faultServerPath], timeout: 1 };
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

async function rejection(work: Promise<unknown>): Promise<{ error: BerryError; ms: number }> {
  const started = Date.now();
  const error = await work.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
  assert.ok(isBerryError(error), String(error));
  return { error, ms: Date.now() - started };
}

function statusOf(servers: readonly ServerStatus[], name: string): ServerStatus {
  const status = servers.find((s) => s.name === name);
  assert.ok(status, name);
  return status;
}

describe('a server that failed to start backs off', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  const hosts: McpHost[] = [];
  const host = (options: Parameters<typeof createMcpHost>[0] = {}): McpHost => {
    const created = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json', startBackoffMs: 3000, ...options });
    hosts.push(created);
    return created;
  };

  beforeEach(() => {
    tmp = tempDir();
  });

  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
    tmp.cleanup();
  });

  it('the first list waits out the init limit; the next answers at once with the recorded failure and when it retries', async () => {
    writeConfig(tmp.dir, { dead, everything });
    const h = host();
    const first = await timed(h.list({}));
    assert.ok(first.ms >= 1000, `first list took ${first.ms} ms`);
    const failed = statusOf(first.value.servers, 'dead');
    assert.ok(failed.status === 'error' && failed.error.code === 'MCP_CONNECT_FAILED');
    assert.match(failed.error.message, /no answer to initialize within 1 s/);
    assert.equal(statusOf(first.value.servers, 'everything').status, 'connected');

    const second = await timed(h.list({}));
    assert.ok(second.ms < 800, `second list took ${second.ms} ms`);
    const again = statusOf(second.value.servers, 'dead');
    assert.ok(again.status === 'error' && again.error.code === 'MCP_CONNECT_FAILED');
    assert.match(again.error.message, /^Server "dead" is not started again for [1-3] s: its start at \S+Z failed, and the next attempt is due at \S+Z/);
    assert.match(again.error.message, /That failure: Server "dead" failed to start .*no answer to initialize within 1 s/);
    assert.equal(statusOf(second.value.servers, 'everything').status, 'connected');

    // Every operation on it fails the same way at once; typings lists it as broken.
    const call = await rejection(h.call({ server: 'dead', tool: 'x', arguments: {} }));
    assert.equal(call.error.code, 'MCP_CONNECT_FAILED');
    assert.ok(call.ms < 800 && call.error instanceof StartBackoffError, `${call.ms} ms: ${call.error.message}`);
    assert.equal(call.error.retryAt - call.error.failedAt, 3000);
    assert.ok((await rejection(h.read({ server: 'dead', uri: 'x://y' }))).ms < 800);
    const types = await timed(h.typings());
    assert.ok(types.ms < 800);
    assert.match(types.value, /MCP_CONNECT_FAILED: Server "dead" is not started again/);
  });

  it('describe and list with refresh try at once, and each failure doubles the window', async () => {
    writeConfig(tmp.dir, { dead, everything });
    const h = host();
    await h.list({});
    const described = await rejection(h.describe({ server: 'dead' }));
    assert.ok(described.ms >= 1000, `describe took ${described.ms} ms: it tried`);
    assert.ok(!(described.error instanceof StartBackoffError));
    const refreshed = await timed(h.list({ refresh: true }));
    assert.ok(refreshed.ms >= 1000, `list --refresh took ${refreshed.ms} ms: it tried`);
    const call = await rejection(h.call({ server: 'dead', tool: 'x', arguments: {} }));
    assert.ok(call.error instanceof StartBackoffError);
    assert.equal(call.error.retryAt - call.error.failedAt, 12_000, 'three failures: 3 s, 6 s, 12 s');
  });

  it('a changed entry is tried at once', async () => {
    writeConfig(tmp.dir, { dead });
    const h = host();
    await h.list({});
    assert.ok((await rejection(h.call({ server: 'dead', tool: 'x', arguments: {} }))).error instanceof StartBackoffError);
    writeConfig(tmp.dir, { dead: { ...dead, args: [...dead.args, 'changed'] } });
    const tried = await rejection(h.call({ server: 'dead', tool: 'x', arguments: {} }));
    assert.ok(tried.ms >= 1000 && !(tried.error instanceof StartBackoffError), `${tried.ms} ms: ${tried.error.message}`);
  });

  it('operations during the first slow start share it: one start, not one per operation', async () => {
    writeConfig(tmp.dir, { dead, everything });
    const events: LogEvent[] = [];
    const h = host({ onLog: (e) => events.push(e) });
    const started = Date.now();
    const results = await Promise.allSettled([
      h.list({}),
      h.call({ server: 'dead', tool: 'x', arguments: {} }),
      h.list({ server: 'dead' }),
      h.call({ server: 'dead', tool: 'y', arguments: {} }),
    ]);
    const ms = Date.now() - started;
    assert.equal(events.filter((e) => e.server === 'dead' && e.kind === 'connecting').length, 1);
    assert.ok(ms < 2500, `${ms} ms`);
    for (const result of results.filter((r) => r.status === 'rejected')) {
      const reason = (result as PromiseRejectedResult).reason as BerryError;
      assert.equal(reason.code, 'MCP_CONNECT_FAILED');
    }
  });

  it('a server that comes back is used again after the window, without a restart of the host', async () => {
    const up = join(tmp.dir, 'up');
    writeConfig(tmp.dir, { flaky: switchable(up) });
    const h = host();
    assert.equal((await rejection(h.call({ server: 'flaky', tool: 'echo', arguments: { text: 'x' } }))).error.code, 'MCP_CONNECT_FAILED');
    writeFileSync(up, '');
    const early = await rejection(h.call({ server: 'flaky', tool: 'echo', arguments: { text: 'x' } }));
    assert.ok(early.error instanceof StartBackoffError, 'within the window: not tried, even though it would work now');
    await new Promise((resolve) => setTimeout(resolve, (early.error as StartBackoffError).retryAt - Date.now() + 50));
    const result = await h.call({ server: 'flaky', tool: 'echo', arguments: { text: 'back' } });
    assert.equal((result.content[0] as { text: string }).text, 'back');
  });

  it('while it backs off, list shows the saved catalog of the server beside its last error', async () => {
    const up = join(tmp.dir, 'up');
    writeFileSync(up, '');
    writeConfig(tmp.dir, { flaky: switchable(up) });
    const savedCatalogs = { dir: join(tmp.dir, 'catalogs') };
    const warm = host({ savedCatalogs });
    assert.equal(statusOf((await warm.list({})).servers, 'flaky').status, 'connected');
    await warm.close();

    rmSync(up);
    const h = host({ savedCatalogs });
    const refreshed = statusOf((await h.list({ refresh: true })).servers, 'flaky');
    assert.ok(refreshed.status === 'error' && refreshed.tools === undefined, JSON.stringify(refreshed));
    const listed = await timed(h.list({}));
    assert.ok(listed.ms < 800, `${listed.ms} ms`);
    const status = statusOf(listed.value.servers, 'flaky');
    assert.ok(status.status === 'error', JSON.stringify(status));
    assert.match(status.error.message, /is not started again for/);
    assert.ok(status.tools?.some((t) => t.name === 'echo') && status.cached !== undefined, JSON.stringify(status));

    // Once the window is over, list makes the one attempt due rather than trust the saved catalog.
    writeFileSync(up, '');
    const call = await rejection(h.call({ server: 'flaky', tool: 'echo', arguments: { text: 'x' } }));
    assert.ok(call.error instanceof StartBackoffError);
    await new Promise((resolve) => setTimeout(resolve, (call.error as StartBackoffError).retryAt - Date.now() + 50));
    const back = statusOf((await h.list({})).servers, 'flaky');
    assert.ok(back.status === 'connected' && back.cached === undefined, JSON.stringify(back));
  });

  it('an HTTP server that refuses the connection backs off too', async () => {
    writeConfig(tmp.dir, { gone: { url: `http://127.0.0.1:${await closedPort()}/mcp` } });
    const h = host();
    const first = await rejection(h.call({ server: 'gone', tool: 'x', arguments: {} }));
    assert.equal(first.error.code, 'MCP_CONNECT_FAILED');
    assert.ok(!(first.error instanceof StartBackoffError));
    const second = await rejection(h.call({ server: 'gone', tool: 'x', arguments: {} }));
    assert.ok(second.error instanceof StartBackoffError && second.error.code === 'MCP_CONNECT_FAILED', second.error.message);
  });

  it('a call that failed after connecting is no start failure: the next operation goes ahead (and nothing is replayed)', async () => {
    writeConfig(tmp.dir, { ok: faultEntry() });
    const h = host();
    assert.equal((await rejection(h.call({ server: 'ok', tool: 'crash', arguments: {} }))).error.code, 'MCP_TRANSPORT_CLOSED');
    const result = await h.call({ server: 'ok', tool: 'echo', arguments: { text: 'next' } });
    assert.equal((result.content[0] as { text: string }).text, 'next');
  });

  it('startBackoffMs: 0 turns it off; only start failures are recorded', async () => {
    writeConfig(tmp.dir, { dead });
    const h = host({ startBackoffMs: 0 });
    await h.list({});
    assert.ok((await rejection(h.call({ server: 'dead', tool: 'x', arguments: {} }))).ms >= 1000);
    const record = new StartBackoff(1000, 4000);
    record.failed('k', new BerryError('MCP_AUTH_REQUIRED', 'sign in'));
    record.failed('k', new BerryError('MCP_TIMEOUT', 'slow call'));
    assert.equal(record.pending('k', 's'), undefined);
    assert.throws(() => createMcpHost({ startBackoffMs: -1 }), /startBackoffMs must be a non-negative number/);
    // The window doubles up to the cap; a success forgets it, and the next failure starts over.
    const start = new ServerStartError('Server "s" failed to start (x): no answer to initialize within 1 s', { server: 's', durationMs: 1000 });
    const windows: number[] = [];
    let now = 0;
    for (let i = 0; i < 5; i++) {
      record.failed('k', start, now);
      const pending = record.pending('k', 's', now);
      assert.ok(pending);
      windows.push(pending.retryAt - now);
      assert.equal(record.pending('k', 's', pending.retryAt), undefined);
      now = pending.retryAt;
    }
    assert.deepEqual(windows, [1000, 2000, 4000, 4000, 4000]);
    record.succeeded('k');
    record.failed('k', start, now);
    assert.equal(record.pending('k', 's', now)?.retryAt, now + 1000);
  });
});
