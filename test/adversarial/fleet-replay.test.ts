import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedPort } from '../support/network.js';
import { nginxInstalled, startNginx, type Nginx } from '../support/nginx.js';
import { fetchFrom, loopbackAddress } from '../support/source-address.js';

interface Upstream {
  readonly address: string;
  /** Requests that reached it. */
  readonly reached: { method: string; path: string }[];
  close(): Promise<void>;
}

/** An upstream that reads each request whole, then either dies with it (closes the socket, no answer) or answers 200. */
async function upstream(behaviour: 'die' | 'answer'): Promise<Upstream> {
  const reached: { method: string; path: string }[] = [];
  const server: Server = createServer(async (req, res) => {
    for await (const _ of req);
    reached.push({ method: req.method ?? '', path: req.url ?? '' });
    if (behaviour === 'die') req.socket.destroy();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    reached,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const post = (nginx: Nginx, from = '127.0.0.1'): Promise<number> => {
  const source = fetchFrom(from);
  return source
    .fetch(nginx.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'run', arguments: { code: 'return 1' } } }),
    })
    .then(async (r) => (await r.arrayBuffer(), r.status))
    .finally(() => source.close());
};

// The cheapest way to replay a run through the documented nginx file: a replica that took the
// POST and died. nginx must not pass that POST on to another replica (it may a GET, and a POST
// that never reached one).
describe('adversarial: nginx in front of a fleet never replays a run', function () {
  this.timeout(30_000);
  const cleanup: (() => Promise<void>)[] = [];
  before(function () {
    if (!nginxInstalled() && !process.env['CI']) this.skip();
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function fleetOf(upstreams: Upstream[]): Promise<Nginx> {
    cleanup.push(...upstreams.map((u) => () => u.close()));
    const nginx = await startNginx(upstreams.map((u) => u.address));
    cleanup.push(() => nginx.stop());
    return nginx;
  }

  it('a POST that reached a replica which died is not sent to another: one arrival, a 502', async () => {
    const dying = await Promise.all([upstream('die'), upstream('die'), upstream('die')]);
    const nginx = await fleetOf(dying);
    assert.equal(await post(nginx), 502);
    assert.equal(dying.flatMap((u) => u.reached).length, 1, JSON.stringify(nginx.access()));
  });

  it('while a GET (idempotent) to the same dying replicas is passed on to each of them', async () => {
    // The contrast that shows the POST case could fail: nginx does retry what it may retry.
    const dying = await Promise.all([upstream('die'), upstream('die'), upstream('die')]);
    const nginx = await fleetOf(dying);
    const source = fetchFrom('127.0.0.1');
    const status = await source.fetch(nginx.url.replace(/\/mcp$/, '/healthz')).then((r) => r.status);
    await source.close();
    assert.equal(status, 502);
    assert.equal(dying.flatMap((u) => u.reached).length, 3);
  });

  it('a POST refused at connect (it never reached a replica) goes to the next one and succeeds', async () => {
    const live = await upstream('answer');
    const dead = [await closedPort(), await closedPort()].map((port) => ({
      address: `127.0.0.1:${port}`,
      reached: [],
      close: async () => {},
    }));
    const nginx = await fleetOf([...dead, live]);
    const statuses = await Promise.all([0, 1, 2, 3, 4, 5].map((n) => post(nginx, loopbackAddress(n))));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200]);
    assert.equal(live.reached.length, 6);
  });
});
