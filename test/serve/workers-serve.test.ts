import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpServe, run, serveHttp, texts } from '../support/berry-serve.js';
import { faultEntry } from '../support/fixture-servers.js';
import { servePidOf, workerPidsOf } from '../support/process-memory.js';
import { childPidsOf, processAlive } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const sleep = (ms: number): string => `await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: ${ms} } }); return 'slept ${ms}';`;

describe('berry-mcp serve --http --workers 2', function () {
  this.timeout(90_000);
  const TOKEN = 'workers-token';
  let tmp: ReturnType<typeof tempDir>;
  let eventLog: string;
  const serves: HttpServe[] = [];

  before(() => {
    tmp = tempDir('berry-serve-workers-');
    eventLog = join(tmp.dir, 'events.log');
    writeConfig(tmp.dir, { fault: faultEntry([], { env: { FIXTURE_EVENT_LOG: eventLog } }) });
  });
  after(async () => {
    await Promise.all(serves.map((s) => s.close()));
    tmp.cleanup();
  });
  const start = async (args: string[], workers = 2): Promise<HttpServe> => {
    const serve = await serveHttp(['--config', 'mcp.json', '--workers', String(workers), ...args], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN } });
    serves.push(serve);
    return serve;
  };

  it("each client is asked to approve only its own runs' calls, whichever worker runs them", async () => {
    const serve = await start(['--confirm-writes', '--max-concurrency', '4']);
    const asked: Record<string, string[]> = { a: [], b: [] };
    const clients = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const client = await serve.connect(TOKEN, { capabilities: { elicitation: { form: {} } } });
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked[name]!.push(request.params.message);
          // Let the other client's runs be in flight at the same time.
          await new Promise((r) => setTimeout(r, 100));
          return { action: 'accept', content: { approve: request.params.message.includes(`from-${name}`) } };
        });
        return { name, client };
      }),
    );
    const results = await Promise.all(
      clients.flatMap(({ name, client }) =>
        [1, 2, 3].map(async (n) => {
          const result = await run(
            client,
            `return (await tools.mcp_call({ server: 'fault', tool: 'echo', arguments: { text: 'from-${name}-${n}' } })).content[0].text;`,
          );
          return { name, n, result };
        }),
      ),
    );
    for (const { name, n, result } of results) {
      assert.equal(result.isError, undefined, texts(result).join('\n'));
      assert.equal(result.structuredContent?.['result'], `from-${name}-${n}`);
    }
    for (const name of ['a', 'b']) {
      assert.equal(asked[name]!.length, 3, asked[name]!.join('\n---\n'));
      assert.ok(
        asked[name]!.every((m) => m.includes(`from-${name}-`)),
        `${name} was asked: ${asked[name]!.join(' | ')}`,
      );
    }
  });

  it("keeps the queue's round robin: a client's run waits behind at most one queued run of another client", async () => {
    const serve = await start(['--max-concurrency', '2']);
    const a = await serve.connect(TOKEN);
    const b = await serve.connect(TOKEN);
    await run(a, sleep(1));
    writeFileSync(eventLog, '');
    const order: string[] = [];
    const track = (name: string, result: Promise<CallToolResult>): Promise<void> =>
      result.then((r) => {
        assert.equal(r.isError, undefined, texts(r).join('\n'));
        order.push(name);
      });
    const mine = [1, 2, 3, 4, 5, 6].map((n) => track(`a${n}`, run(a, sleep(600))));
    await waitForEvent(eventLog, 'started sleep', { count: 2 });
    await Promise.all([...mine, track('b', run(b, 'return 1'))]);
    // b came while a1 and a2 ran, behind a3..a6: it runs right after a3 (one FIFO would put it last).
    assert.ok(order.indexOf('b') <= 3, order.join(' '));
    assert.equal(order.length, 7);
  });

  it('exits cleanly on SIGTERM with runs in flight, leaving no process behind', async () => {
    const serve = await start([]);
    const client = await serve.connect(TOKEN);
    await run(client, sleep(1));
    writeFileSync(eventLog, '');
    // The SDK client never settles a request whose stream the server closed: it is not awaited.
    void run(client, sleep(30_000)).catch(() => {});
    await waitForEvent(eventLog, 'started sleep');
    const children = childPidsOf(serve.child.pid!);
    assert.ok(children.length > 0, 'the fault server runs under serve');
    const exited = new Promise<number | null>((resolve) => serve.child.once('exit', resolve));
    serve.child.kill('SIGTERM');
    assert.equal(await exited, 0, serve.stderr());
    await waitFor(() => children.every((pid) => !processAlive(pid)), 5_000, 'the servers serve started to exit');
  });

  it('its workers end when serve itself is killed (SIGKILL): none outlives it', async () => {
    const serve = await start([]);
    await run(await serve.connect(TOKEN), 'return 1');
    const servePid = servePidOf(serve.child.pid!);
    const workers = workerPidsOf(servePid);
    assert.equal(workers.length, 2);
    process.kill(servePid, 'SIGKILL');
    await waitFor(() => workers.every((pid) => !processAlive(pid)), 5_000, 'the workers to end with serve');
  });

  it('executes 4 runs per worker at once by default (8 with --workers 2, 4 with --workers 0); one more queues, the next is refused', async () => {
    for (const [workers, slots] of [
      [2, 8],
      [0, 4],
    ] as const) {
      // One client may use every slot here: this counts the slots, not a client's share of them.
      const serve = await start(['--max-queued-runs', '1', '--max-client-concurrency', String(slots)], workers);
      const client = await serve.connect(TOKEN);
      await run(client, sleep(1));
      // slots execute, one waits, and one more finds the client's queue full, whatever their order.
      const results = await Promise.all(Array.from({ length: slots + 2 }, () => run(client, sleep(1_000))));
      const refused = results.filter((r) => r.isError === true);
      assert.equal(refused.length, 1, `--workers ${workers}: ${results.map((r) => texts(r).join(' ')).join(' | ')}`);
      assert.match(texts(refused[0]!).join('\n'), new RegExp(`the server ${slots}\\).*SERVE_QUEUE_FULL`, 's'));
      assert.equal(results.filter((r) => r.isError === undefined).length, slots + 1);
      await serve.close();
    }
  });

  it("--workers 0 runs on serve's own thread as before; a bad count is a usage error", async () => {
    const serve = await start([], 0);
    const result = await run(await serve.connect(TOKEN), 'return 6 * 7');
    assert.equal(result.structuredContent?.['result'], 42);
    await assert.rejects(serveHttp(['--config', 'mcp.json', '--workers', '65'], { cwd: tmp.dir }), /--workers needs a number of worker processes from 0 to 64/);
  });
});
