/**
 * Section 16: what checking arguments and learning result types add to a warm call.
 *
 * In alternating rounds: 1,000 warm `host.call`s of server-everything `get-sum {a, b}` (its real
 * draft-07 schema; the host checks the arguments on each), against the check alone run 100,000
 * times on the same tool and arguments (the compiled validator cached per schema, as on the call
 * path). Likewise the typed fixture's `read_graph` (structuredContent, no outputSchema) against
 * learning its result's type alone. And with against without: the call path below the host
 * (`callOn` on the pooled connection: lookup, check, call) with the real checker, and with one
 * that checks nothing. Each ratio is taken per round.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { createHost } from '../src/index.js';
import { ArgumentChecker } from '../src/bindings/operations/arguments/argument-check.js';
import { callOn } from '../src/bindings/operations/call-operation.js';
import { ObservedTypes } from '../src/bindings/catalog/observed-types/observer.js';
import { OPEN_GATE } from '../src/bindings/server-text/gate.js';
import { mergeObservations, observeResult, type Observation } from '../src/bindings/catalog/observed-types/observation.js';
import { typedServerPath } from '../test/support/paths.js';
import { everythingEntry, NODE, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios, timeEach } from './stats.js';

const CALLS = 1000;
const CHECKS = 100_000;
const ROUNDS = 8;
const SUM = { server: 'everything', tool: 'get-sum', arguments: { a: 2, b: 40 } } as const;
const GRAPH = { server: 'typed', tool: 'read_graph', arguments: {} } as const;

export default async function argumentCheck(): Promise<Row[]> {
  const section = '16 argument check';
  const { dir, remove } = tempDir('arguments');
  const host = createHost({
    cwd: dir,
    configPath: writeConfig(dir, { everything: everythingEntry(), typed: { command: NODE, args: [typedServerPath] } }),
  });
  try {
    await host.call(SUM);
    const graphResult = (await host.call(GRAPH)) as CallToolResult;
    const sumTool = await host.withServer('everything', async (c) => (await c.listTools()).find((t) => t.name === SUM.tool));
    if (sumTool === undefined) throw new Error('get-sum is not in the catalog');
    const checker = new ArgumentChecker(() => {});
    await checker.check(SUM.server, sumTool, SUM.arguments);
    const connection = await host.withServer('everything', async (c) => c);
    const observed = new ObservedTypes(undefined, () => {});
    const withCheck = { approve: undefined, checker, observed };
    const withoutCheck = { approve: undefined, checker: { check: () => undefined } as unknown as ArgumentChecker, observed };
    const entry = { name: SUM.server };
    let learned: Observation | undefined;
    const perCall = (count: number, action: () => void): number => {
      const t0 = performance.now();
      for (let i = 0; i < count; i++) action();
      return (performance.now() - t0) / count;
    };
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        sumCall: () => timeEach(CALLS, () => host.call(SUM)),
        check: async () => perCall(CHECKS, () => checker.check(SUM.server, sumTool as Tool, SUM.arguments)),
        graphCall: () => timeEach(CALLS, () => host.call(GRAPH)),
        learn: async () => perCall(CALLS * 10, () => (learned = mergeObservations(learned, observeResult(graphResult)!))),
      },
    );
    // A pair of its own, so that each side runs first in half of the rounds (AB, BA, …).
    const ab = await alternate(
      { rounds: 2 * ROUNDS, warmupRounds: 1 },
      {
        callWith: () => timeEach(CALLS, () => callOn(connection, entry, SUM.tool, SUM.arguments, {}, withCheck, OPEN_GATE)),
        callWithout: () => timeEach(CALLS, () => callOn(connection, entry, SUM.tool, SUM.arguments, {}, withoutCheck, OPEN_GATE)),
      },
    );
    return [
      row(section, 'host.call(get-sum), warm, per call (arguments checked)', 'ms', r.sumCall.samples),
      row(section, 'argument check alone (compiled, cached), per call', 'ms', r.check.perRound, { note: `${CHECKS} checks per round` }),
      row(
        section,
        'argument check / warm host.call(get-sum)',
        '%',
        pairedRatios(r.check.perRound, r.sumCall.perRound).map((x) => x * 100),
        {
          target: { max: 2, label: '< 2 %' },
        },
      ),
      row(section, 'call path (callOn) with the check / without, median call', 'x', pairedRatios(ab.callWith.perRoundMedian, ab.callWithout.perRoundMedian)),
      row(section, 'host.call(read_graph), warm, per call (type learned)', 'ms', r.graphCall.samples),
      row(section, "learning the result's type alone, per call", 'ms', r.learn.perRound, {
        note: 'the shape of its structuredContent, merged into what was learned',
      }),
      row(
        section,
        'learning / warm host.call(read_graph)',
        '%',
        pairedRatios(r.learn.perRound, r.graphCall.perRound).map((x) => x * 100),
      ),
    ];
  } finally {
    await host.close();
    remove();
  }
}
