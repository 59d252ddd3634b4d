import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createMcpHost, type LogEvent } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { createHost } from '../../src/host.js';
import { faultEntry } from '../support/fixture-servers.js';
import { childPidsOf, processAlive } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';
import { SharedWork } from '../../src/common/shared-work.js';

const abortAfter = (ms: number): AbortSignal => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('caller reason')), ms);
  return ac.signal;
};

describe('shared work has no single owner', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let eventLog: string;

  before(() => {
    tmp = tempDir();
    eventLog = join(tmp.dir, 'events.log');
    writeConfig(tmp.dir, {
      slowstart: faultEntry(['--delay-start=800']),
      slowlist: faultEntry(['--slow-list=800']),
      ok: faultEntry(),
      hangstart: faultEntry(['--hang-start', '--ignore-sigterm'], { env: { FIXTURE_EVENT_LOG: eventLog } }),
    });
  });
  after(() => tmp.cleanup());

  it('one caller aborting a shared connect cancels only that caller; the connect goes on for the others', async () => {
    const events: LogEvent[] = [];
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json', onLog: (e) => events.push(e) });
    try {
      const a = host.call({ server: 'slowstart', tool: 'echo', arguments: { text: 'a' } }, { signal: abortAfter(200) });
      const b = host.call({ server: 'slowstart', tool: 'echo', arguments: { text: 'b' } });
      await assert.rejects(a, { code: 'MCP_CANCELLED' });
      const result = await b;
      assert.deepEqual(result.content, [{ type: 'text', text: 'b' }]);
      assert.equal(events.filter((e) => e.kind === 'spawned').length, 1, 'one connect served both');
    } finally {
      await host.close();
    }
  });

  it('a connect every caller has left is abandoned, and the next operation starts afresh', async () => {
    const events: LogEvent[] = [];
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json', onLog: (e) => events.push(e) });
    try {
      await assert.rejects(host.call({ server: 'slowstart', tool: 'echo', arguments: { text: 'a' } }, { signal: abortAfter(100) }), { code: 'MCP_CANCELLED' });
      const result = await host.call({ server: 'slowstart', tool: 'echo', arguments: { text: 'again' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'again' }]);
      assert.equal(events.filter((e) => e.kind === 'connecting').length, 2);
    } finally {
      await host.close();
    }
  });

  it('one caller aborting the shared tools/list cancels only that caller', async () => {
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    try {
      // Connected, with the tool catalog dropped again (list_changed): the next listing is shared and slow.
      await host.call({ server: 'slowlist', tool: 'add_tool', arguments: { name: 'extra' } });
      const a = host.describe({ server: 'slowlist', tool: 'echo' }, { signal: abortAfter(200) });
      const b = host.describe({ server: 'slowlist', tool: 'echo' });
      await assert.rejects(a, { code: 'MCP_CANCELLED' });
      assert.equal(((await b) as { name: string }).name, 'echo');
    } finally {
      await host.close();
    }
  });

  it('a run that times out does not cancel another run waiting on the same work', async () => {
    const host = createHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    try {
      const code = 'return (await tools.mcp_describe({ server: "slowstart", tool: "echo" })).name;';
      const [short, long] = await Promise.all([host.run(code, { timeoutMs: 300 }), host.run(code, { timeoutMs: 20_000 })]);
      assert.equal(short.ok, false);
      assert.equal(short.error?.code, 'SCRIPT_TIMEOUT');
      assert.ok(long.ok, JSON.stringify(long.error));
      assert.equal(long.result, 'echo');
    } finally {
      await host.close();
    }
  });

  it('a signal aborted before the operation rejects every operation with MCP_CANCELLED, not the signal reason', async () => {
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    try {
      for (const signal of [AbortSignal.abort(), AbortSignal.abort(new Error('mine'))]) {
        const operations: [string, () => Promise<unknown>][] = [
          ['list', () => host.list({}, { signal })],
          ['describe', () => host.describe({ server: 'ok' }, { signal })],
          ['call', () => host.call({ server: 'ok', tool: 'echo', arguments: { text: 'x' } }, { signal })],
          ['readConfig', () => host.readConfig(signal)],
          ['typings', () => host.typings({ signal })],
          ['withServer', () => host.withServer('ok', async () => 1, signal)],
        ];
        for (const [name, operation] of operations) {
          const error = await operation().then(
            () => assert.fail(`${name} resolved`),
            (e: unknown) => e,
          );
          assert.ok(isBerryError(error), `${name}: ${String(error)}`);
          assert.equal(error.code, 'MCP_CANCELLED', name);
        }
      }
    } finally {
      await host.close();
    }
  });

  it('an abort during the config read or connect is MCP_CANCELLED too', async () => {
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    try {
      for (const ms of [0, 1, 5, 50]) {
        const ac = new AbortController();
        const pending = host.call({ server: 'slowstart', tool: 'echo', arguments: { text: 'x' } }, { signal: ac.signal });
        setTimeout(() => ac.abort(new Error('mine')), ms);
        await assert.rejects(pending, (error: unknown) => isBerryError(error) && error.code === 'MCP_CANCELLED');
      }
    } finally {
      await host.close();
    }
  });

  it('host.close() abandons a connect in progress instead of waiting for the init timeout', async () => {
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    const pending = host.call({ server: 'hangstart', tool: 'echo', arguments: { text: 'x' } }).then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    await waitFor(() => childPidsOf(process.pid).some(processAlive), 5000, 'the server to start');
    // Past node's startup, so its SIGTERM handler is in place and the whole kill sequence runs.
    await waitForEvent(eventLog, 'hanging at start');
    const started = Date.now();
    await host.close();
    const elapsed = Date.now() - started;
    // The kill sequence: stdin end, 150 ms, SIGTERM (ignored), 1 s, SIGKILL.
    assert.ok(elapsed < 3000, `close took ${elapsed} ms`);
    const error = await pending;
    assert.ok(isBerryError(error) && error.code === 'MCP_HOST_CLOSED', String(error));
    await waitFor(() => childPidsOf(process.pid).filter(processAlive).length === 0, 3000, 'no children');
  });
});

describe('SharedWork', () => {
  const deferred = (): { work: SharedWork<string>; signal: () => AbortSignal | undefined; resolve: (v: string) => void } => {
    let own: AbortSignal | undefined;
    let resolve!: (v: string) => void;
    const work = new SharedWork<string>((signal) => {
      own = signal;
      return new Promise<string>((res, rej) => {
        resolve = res;
        signal.addEventListener('abort', () => rej(new Error('abandoned')), { once: true });
      });
    });
    return { work, signal: () => own, resolve };
  };

  it('is abandoned only when the last waiter leaves', async () => {
    const { work, signal } = deferred();
    const a = new AbortController();
    const b = new AbortController();
    const pa = work.join(a.signal, 'A');
    const pb = work.join(b.signal, 'B');
    a.abort();
    await assert.rejects(pa, { code: 'MCP_CANCELLED', message: 'A was cancelled.' });
    assert.equal(signal()?.aborted, false, 'B still waits');
    b.abort();
    await assert.rejects(pb, { code: 'MCP_CANCELLED' });
    assert.equal(signal()?.aborted, true);
    assert.equal(work.abandoned, true);
  });

  it('a waiter without a signal keeps the work alive; everyone gets the value', async () => {
    const { work, signal, resolve } = deferred();
    const a = new AbortController();
    const pa = work.join(a.signal, 'A');
    const plain = work.join(undefined, 'plain');
    a.abort();
    await assert.rejects(pa, { code: 'MCP_CANCELLED' });
    assert.equal(signal()?.aborted, false);
    resolve('done');
    assert.equal(await plain, 'done');
    assert.equal(await work.join(new AbortController().signal, 'late'), 'done');
    await assert.rejects(work.join(AbortSignal.abort(), 'pre'), { code: 'MCP_CANCELLED' });
  });
});
