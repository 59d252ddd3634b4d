import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConnectionPool, createMcpHost, type LogEvent } from '../../src/bindings/index.js';
import { faultEntry, whoami } from '../support/fixture-servers.js';
import { processAlive } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const pidOf = async (host: ReturnType<typeof createMcpHost>, server = 'a'): Promise<number> =>
  whoami(await host.call({ server, tool: 'whoami', arguments: {} })).pid;

describe('connection pool', function () {
  this.timeout(30_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('rereads mcp.json on every operation: a changed entry gets a new connection, an unchanged one keeps its own', async () => {
    writeConfig(tmp.dir, { a: faultEntry(), b: faultEntry([], { env: { V: '1' } }) });
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    try {
      const a1 = await pidOf(host, 'a');
      const b1 = await pidOf(host, 'b');
      writeConfig(tmp.dir, { a: faultEntry(), b: faultEntry([], { env: { V: '2' } }), c: faultEntry() });
      const a2 = await pidOf(host, 'a');
      const b2 = await pidOf(host, 'b');
      assert.equal(a2, a1, 'unchanged entry keeps its server');
      assert.notEqual(b2, b1, 'changed entry gets a new server');
      await waitFor(() => !processAlive(b1), 5000, 'the replaced server to exit');
      assert.equal((await pidOf(host, 'c')) > 0, true);
    } finally {
      await host.close();
    }
  });

  it('separates connections by working directory and by resolved config (${VAR} value)', async () => {
    const one = join(tmp.dir, 'one');
    const two = join(tmp.dir, 'two');
    mkdirSync(one);
    mkdirSync(two);
    const configPath = writeConfig(tmp.dir, { a: faultEntry([], { env: { TOKEN: '${BERRY_POOL_TEST}' } }) });
    const pool = new ConnectionPool();
    const h1 = createMcpHost({ cwd: one, configPath, pool });
    const h1b = createMcpHost({ cwd: one, configPath, pool });
    const h2 = createMcpHost({ cwd: two, configPath, pool });
    try {
      process.env['BERRY_POOL_TEST'] = 'first';
      const p1 = await pidOf(h1);
      assert.equal(await pidOf(h1b), p1, 'same machine, cwd and config share a connection');
      const p2 = await pidOf(h2);
      assert.notEqual(p2, p1, 'another cwd gets its own connection');
      process.env['BERRY_POOL_TEST'] = 'second';
      const p3 = await pidOf(h1);
      assert.notEqual(p3, p1, 'another resolved value gets its own connection');
      assert.equal(whoami(await h1.call({ server: 'a', tool: 'whoami', arguments: { names: ['TOKEN'] } })).env['TOKEN'], 'second');
      await waitFor(() => !processAlive(p1), 5000, 'the stale connection to close');
    } finally {
      delete process.env['BERRY_POOL_TEST'];
      await pool.close();
    }
  });

  it('shares one connect between concurrent first operations', async () => {
    writeConfig(tmp.dir, { a: faultEntry() });
    const events: LogEvent[] = [];
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json', onLog: (e) => events.push(e) });
    try {
      const pids = await Promise.all(Array.from({ length: 6 }, () => pidOf(host)));
      assert.equal(new Set(pids).size, 1);
      assert.equal(events.filter((e) => e.kind === 'spawned').length, 1);
    } finally {
      await host.close();
    }
  });

  it('leaves no entry after a rejected connect: the next operation tries again', async () => {
    writeConfig(tmp.dir, { a: faultEntry(['--fail-start']) });
    const pool = new ConnectionPool();
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json', pool });
    try {
      await assert.rejects(pidOf(host), { code: 'MCP_CONNECT_FAILED' });
      assert.equal(pool.size, 0);
      await assert.rejects(pidOf(host), { code: 'MCP_CONNECT_FAILED' });
    } finally {
      await host.close();
      await pool.close();
    }
  });

  it('closes an entry after idleTimeoutMs with nothing in flight, and reconnects on the next operation', async () => {
    writeConfig(tmp.dir, { a: faultEntry() });
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json', idleTimeoutMs: 300 });
    try {
      const first = await pidOf(host);
      // A call longer than the idle timeout keeps its connection: idleness counts from the end.
      await host.call({ server: 'a', tool: 'sleep', arguments: { ms: 500 } });
      assert.ok(processAlive(first));
      await waitFor(() => !processAlive(first), 5000, 'the idle server to be closed');
      const second = await pidOf(host);
      assert.notEqual(second, first);
    } finally {
      await host.close();
    }
  });

  it('closes a connection whose config changed only after its in-flight calls end', async () => {
    const eventLog = join(tmp.dir, 'events-pool.log');
    writeConfig(tmp.dir, { a: faultEntry([], { env: { FIXTURE_EVENT_LOG: eventLog } }) });
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    try {
      const old = await pidOf(host);
      // Long enough to outlast the new connection's start (spawn, initialize, tools/list, whoami).
      const slow = host.call({ server: 'a', tool: 'sleep', arguments: { ms: 3000 } });
      await waitForEvent(eventLog, 'started sleep');
      writeConfig(tmp.dir, { a: faultEntry([], { env: { CHANGED: 'yes', FIXTURE_EVENT_LOG: eventLog } }) });
      const fresh = await pidOf(host);
      assert.notEqual(fresh, old);
      assert.ok(processAlive(old), 'still serving its in-flight call');
      const result = await slow;
      assert.equal((result.content[0] as { text: string }).text, 'slept 3000');
      await waitFor(() => !processAlive(old), 5000, 'the retired server to close');
    } finally {
      await host.close();
    }
  });
});
