import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { serveHttp, type HttpServe } from '../support/berry-serve.js';
import { modernHttp, resultOf, runModern } from '../support/berry-serve-modern.js';
import { faultEntry } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const TOKEN = 'replica-token';

interface Balancer {
  readonly url: string;
  /** Which backend each tools/call went to, in order (0 or 1). */
  readonly calls: number[];
  close(): Promise<void>;
}

/**
 * An ordinary round-robin HTTP balancer: each request goes to the next backend in turn, bodies
 * stream through both ways, and a backend that refuses connections leaves the rotation (a request
 * that never reached it is retried on the next one). It knows nothing of MCP beyond noting which
 * backend got each tools/call.
 */
async function roundRobin(backends: readonly string[]): Promise<Balancer> {
  const targets = backends.map((url) => new URL(url));
  const alive = new Set(targets.keys());
  const calls: number[] = [];
  let turn = 0;
  const next = (): number | undefined => {
    for (let i = 0; i < targets.length; i++) {
      const candidate = (turn + i) % targets.length;
      if (alive.has(candidate)) {
        turn = candidate + 1;
        return candidate;
      }
    }
    return undefined;
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const send = (): void => {
      const index = next();
      if (index === undefined) {
        res.writeHead(503).end();
        return;
      }
      if (body.includes('"method":"tools/call"')) calls.push(index);
      const target = targets[index]!;
      const headers = { ...req.headers, host: target.host };
      const forward = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      forward.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') {
          alive.delete(index);
          if (body.includes('"method":"tools/call"')) calls.pop();
          send();
        } else if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      res.on('close', () => forward.destroy());
      forward.end(body);
    };
    send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// Two serve --http processes behind a round-robin balancer, a 2026 client spreading runs over both, one process killed mid-way.
describe('berry-mcp serve: stateless replicas behind a balancer (2026-07-28)', function () {
  this.timeout(90_000);
  let tmp: ReturnType<typeof tempDir>;
  let replicas: HttpServe[] = [];
  let balancer: Balancer;
  let client: Client;
  let eventLog: string;

  before(async () => {
    tmp = tempDir('berry-serve-replicas-');
    eventLog = join(tmp.dir, 'events.log');
    writeConfig(tmp.dir, { fault: faultEntry([], { env: { FIXTURE_EVENT_LOG: eventLog } }) });
    replicas = await Promise.all(
      ['a', 'b'].map((name) => serveHttp(['--config', 'mcp.json'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN, BERRY_REPLICA: name } })),
    );
    balancer = await roundRobin(replicas.map((r) => r.url));
    client = await modernHttp(balancer.url, TOKEN);
  });
  after(async () => {
    await client?.close().catch(() => {});
    await balancer?.close();
    await Promise.all(replicas.map((r) => r.close()));
    tmp.cleanup();
  });

  // Which serve process ran the script: its fault server inherited that replica's BERRY_REPLICA.
  const script = (
    ms: number,
  ) => `const me = (await tools.mcp_call({ server: 'fault', tool: 'whoami', arguments: { names: ['BERRY_REPLICA'] } })).structuredContent;
    await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: ${ms} } });
    return me.env.BERRY_REPLICA;`;

  it('spreads runs over both; killing one fails only the runs in flight there, with an error; the others complete', async () => {
    // Warm-up: one run on each replica (their fault servers start), and proof that both serve.
    const warm = await Promise.all([runModern(client, script(0)), runModern(client, script(0))]);
    assert.deepEqual(new Set(warm.map(resultOf)), new Set(['a', 'b']));

    const first = balancer.calls.length;
    const inFlight = 6;
    const runs = Array.from({ length: inFlight }, () => {
      const started = runModern(client, script(2500), { timeoutMs: 60_000 });
      return started.then(
        (result) => ({ ok: true as const, replica: resultOf(result), at: Date.now() }),
        (error: unknown) => ({ ok: false as const, error, at: Date.now() }),
      );
    });
    // Every run's sleep has reached a fault server: all six are executing, three on each replica.
    await waitForEvent(eventLog, 'started sleep', { count: 2 + inFlight, timeoutMs: 30_000 });
    const routed = balancer.calls.slice(first);
    assert.equal(routed.filter((b) => b === 1).length, inFlight / 2, `round robin: ${JSON.stringify(routed)}`);
    const victim = replicas[1]!;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');

    const outcomes = await Promise.all(runs);
    const failed = outcomes.filter((o) => !o.ok);
    const done = outcomes.filter((o) => o.ok);
    // Exactly the runs routed to the killed replica failed, each with an error, promptly (no hang until a timeout).
    assert.equal(failed.length, routed.filter((b) => b === 1).length);
    for (const f of failed) {
      assert.ok(f.error instanceof Error, String(f.error));
      if (process.env['VERBOSE']) process.stdout.write(`      failed after ${f.at - killedAt} ms: ${f.error.message}\n`);
      assert.ok(f.at - killedAt < 5000, `failed ${f.at - killedAt} ms after the kill`);
    }
    // The others completed on the surviving replica, with their results.
    assert.equal(done.length, inFlight - failed.length);
    for (const d of done) assert.equal(d.replica, 'a');

    // The client needs nothing from the dead replica: its next runs go to the one left.
    const after = await Promise.all([1, 2, 3].map(() => runModern(client, script(0))));
    for (const r of after) assert.equal(resultOf(r), 'a');
  });
});
