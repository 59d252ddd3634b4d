import assert from 'node:assert/strict';
import { modernTexts, resultOf, runModern } from '../support/berry-serve-modern.js';
import { nginxInstalled } from '../support/nginx.js';
import { waitFor, events } from '../support/wait.js';
import { REPLICAS, spreadClients, startFleet, whereScript, type Fleet, type FleetClient } from './fleet.js';

interface Outcome {
  readonly id: string;
  readonly client: FleetClient;
  readonly ok: boolean;
  readonly replica?: unknown;
  readonly error?: unknown;
  readonly at: number;
}

/** The `start ID REPLICA` lines of the tally: every call that reached the downstream tool. */
function starts(fleet: Fleet, prefix: string): { id: string; replica: string }[] {
  return events(fleet.eventLog)
    .map((line) => /^start (\S+) (\S+)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && m[1]!.startsWith(prefix))
    .map((m) => ({ id: m[1]!, replica: m[2]! }));
}

// Three serve --http replicas behind nginx (docs/fleet/nginx.conf), 2026 clients from six source
// addresses spread over them, one replica SIGKILLed with runs in flight on every replica.
describe('fleet: a replica killed under load behind nginx (2026-07-28)', function () {
  this.timeout(120_000);
  let fleet: Fleet;
  let clients: FleetClient[] = [];

  before(async function () {
    if (!nginxInstalled() && !process.env['CI']) this.skip();
    fleet = await startFleet('berry-fleet-kill-');
    clients = await spreadClients(fleet, 2);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await fleet?.close();
  });

  it('fails only the runs in flight on the killed replica, runs no call twice, and serves the next runs on the others', async () => {
    const victim = 'b';
    const perClient = 2;
    const runs: Promise<Outcome>[] = [];
    for (const [i, c] of clients.entries()) {
      for (let k = 0; k < perClient; k++) {
        const id = `load-${i}-${k}`;
        runs.push(
          runModern(c.client, whereScript(id, 3000), { timeoutMs: 60_000 }).then(
            (result) => ({
              id,
              client: c,
              ok: result.isError !== true,
              replica: resultOf(result),
              error: result.isError ? modernTexts(result) : undefined,
              at: Date.now(),
            }),
            (error: unknown) => ({ id, client: c, ok: false, error, at: Date.now() }),
          ),
        );
      }
    }
    const total = clients.length * perClient;
    // Every run's call has reached its replica's tally server: all are executing, on all three.
    await waitFor(() => starts(fleet, 'load-').length >= total, 30_000, `${total} tally calls started`);
    assert.deepEqual(new Set(starts(fleet, 'load-').map((s) => s.replica)), new Set(REPLICAS));
    const killedAt = Date.now();
    fleet.replicas[REPLICAS.indexOf(victim)]!.child.kill('SIGKILL');

    const outcomes = await Promise.all(runs);
    const failed = outcomes.filter((o) => !o.ok);
    const done = outcomes.filter((o) => o.ok);
    // Exactly the runs of the victim's clients failed, promptly, with an error; the others completed where nginx sent them.
    assert.deepEqual(
      failed.map((o) => o.id).sort(),
      outcomes
        .filter((o) => o.client.replica === victim)
        .map((o) => o.id)
        .sort(),
      JSON.stringify(failed.map((o) => String(o.error))),
    );
    for (const f of failed) {
      if (process.env['VERBOSE']) process.stdout.write(`      ${f.id} failed ${f.at - killedAt} ms after the kill: ${String(f.error)}\n`);
      assert.ok(f.at - killedAt < 5000, `${f.id} failed ${f.at - killedAt} ms after the kill`);
    }
    for (const d of done) assert.equal(d.replica, d.client.replica, `${d.id} ran where its address hashes`);

    // The downstream server counted each call once: successful runs + runs that failed after reaching the tool, never an id twice.
    const counted = starts(fleet, 'load-');
    assert.equal(new Set(counted.map((s) => s.id)).size, counted.length, `a call ran twice: ${JSON.stringify(counted)}`);
    const reached = failed.filter((f) => counted.some((s) => s.id === f.id));
    assert.equal(counted.length, done.length + reached.length);
    for (const s of counted.filter((s) => failed.some((f) => f.id === s.id))) assert.equal(s.replica, victim);

    // Later runs succeed on the others, the victim's clients' too (nginx passes on a connection the dead replica refuses: it never reached it).
    const later = await Promise.all(clients.map((c, i) => runModern(c.client, whereScript(`after-${i}`)).then((r) => ({ c, r }))));
    for (const { c, r } of later) {
      assert.equal(r.isError, undefined, modernTexts(r).join('\n'));
      if (c.replica === victim) assert.notEqual(resultOf(r), victim);
      else assert.equal(resultOf(r), c.replica);
    }
    const afterCounted = starts(fleet, 'after-');
    assert.equal(afterCounted.length, clients.length, 'each later run called the tool once');
    assert.ok(!afterCounted.some((s) => s.replica === victim));
  });
});
