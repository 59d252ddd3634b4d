import assert from 'node:assert/strict';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { run } from '../support/berry-serve.js';
import { modernTexts, resultOf, runModern } from '../support/berry-serve-modern.js';
import { nginxInstalled } from '../support/nginx.js';
import { fetchFrom, loopbackAddress, type SourceFetch } from '../support/source-address.js';
import { FLEET_TOKEN, REPLICAS, spreadClients, startFleet, type Fleet, type FleetClient } from './fleet.js';

/** Asks the run's client a question through the tally server, then counts a call: where each happened, and the answer. */
const askScript = (id: string): string => `
  const asked = (await tools.mcp_call({ server: 'tally', tool: 'ask', arguments: { question: 'Who is asking?' } })).structuredContent;
  const after = (await tools.mcp_call({ server: 'tally', tool: 'tally', arguments: { id: ${JSON.stringify(id)} } })).structuredContent;
  return { asked: asked.replica, answer: asked.answer, after: after.replica };`;

interface Asked {
  readonly asked: string;
  readonly answer: string | null;
  readonly after: string;
}

// The runs that live in one replica (a 2025 session; a 2026 run waiting for its input_required
// answer) keep reaching it through nginx's hash on the client address, while clients spread.
describe('fleet: sessions and input_required rounds stay on their replica behind nginx', function () {
  this.timeout(120_000);
  let fleet: Fleet;

  before(async function () {
    if (!nginxInstalled() && !process.env['CI']) this.skip();
    fleet = await startFleet('berry-fleet-sticky-');
  });
  after(async () => fleet?.close());

  it('completes 2026-07-28 input_required rounds of clients from six addresses spread over the three replicas', async () => {
    const clients: FleetClient[] = await spreadClients(fleet, 2, { capabilities: { elicitation: { form: {} } } });
    try {
      const asked = new Map<string, number>();
      for (const c of clients) {
        c.client.setRequestHandler('elicitation/create', async () => {
          asked.set(c.address, (asked.get(c.address) ?? 0) + 1);
          return { action: 'accept', content: { answer: `from ${c.address}` } };
        });
      }
      // The three replicas at once; on each, its clients' runs one after another: a stdio server's
      // question with two runs busy on it has no one run to go to, and serve declines it (docs/serve.md#elicitation).
      const perReplica = await Promise.all(
        REPLICAS.map(async (replica) => {
          const done = [];
          for (const [i, c] of clients.entries()) {
            if (c.replica !== replica) continue;
            for (const k of [0, 1]) done.push({ c, result: await runModern(c.client, askScript(`round-${i}-${k}`)) });
          }
          return done;
        }),
      );
      for (const { c, result } of perReplica.flat()) {
        assert.equal(result.isError, undefined, modernTexts(result).join('\n'));
        assert.deepEqual(resultOf(result), { asked: c.replica, answer: `from ${c.address}`, after: c.replica });
      }
      for (const c of clients) assert.equal(asked.get(c.address), 2, `${c.address} answered its two questions`);
      assert.deepEqual(new Set(clients.map((c) => c.replica)), new Set(REPLICAS));
      // Every retry (the POST carrying the answers and the sealed requestState) went where its first leg went.
      for (const c of clients) {
        const upstreams = new Set(
          fleet.nginx
            .access()
            .filter((a) => a.client === c.address && a.method === 'POST')
            .flatMap((a) => a.upstreams),
        );
        assert.equal(upstreams.size, 1, `${c.address} reached ${[...upstreams].join(', ')}`);
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it('keeps each 2025-11-25 session, and its elicitation round trips, on one replica while sessions spread', async () => {
    const sessions: { source: SourceFetch; client: LegacyClient }[] = [];
    const replicaOf = new Map<string, string>();
    try {
      // Sessions from new addresses until they cover two replicas (nginx's hash decides where each lands).
      for (let n = 100; n < 130 && new Set(replicaOf.values()).size < 2; n++) {
        const source = fetchFrom(loopbackAddress(n));
        const client = new LegacyClient({ name: 'fleet-2025', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
        client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer: `session ${source.address}` } }));
        const transport = new StreamableHTTPClientTransport(new URL(fleet.nginx.url), {
          fetch: source.fetch,
          requestInit: { headers: { authorization: `Bearer ${FLEET_TOKEN}` } },
        });
        await client.connect(transport);
        assert.ok(transport.sessionId, 'a 2025 session');
        sessions.push({ source, client });
        // Three runs in the session, each a round trip to the client, one after the other.
        const seen = new Set<string>();
        for (let k = 0; k < 3; k++) {
          const answer = resultOf(await run(client, askScript(`session-${n}-${k}`))) as Asked;
          assert.equal(answer.answer, `session ${source.address}`);
          seen.add(answer.asked).add(answer.after);
        }
        assert.equal(seen.size, 1, `session from ${source.address} ran on ${[...seen].join(', ')}`);
        replicaOf.set(source.address, [...seen][0]!);
      }
      assert.ok(new Set(replicaOf.values()).size >= 2, `sessions spread: ${JSON.stringify([...replicaOf])}`);
    } finally {
      for (const s of sessions) {
        await s.client.close().catch(() => {});
        await s.source.close().catch(() => {});
      }
    }
  });
});
