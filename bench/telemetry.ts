/**
 * Section 21: what OpenTelemetry costs a warm call when no SDK is registered (the library's
 * default: @opentelemetry/api's no-ops), and, for the record, with one recording every span.
 *
 * In alternating rounds: 1,000 warm `host.call(echo)`s of server-everything against the
 * telemetry work that one such call does, alone, 100,000 times: the host's reuse mark
 * (`withReused`), the request's span started, made active and ended (`startRequest` on the real
 * pooled connection, with the operation name built as requests.ts builds it), and the trace check
 * at the transport's `send` (`traceRequests`, around a send that does nothing). The ratio per
 * round is the cost's share of the call (target ≤ 1 %). Then the same pair with the Node SDK
 * registered (NodeTracerProvider, a batch processor into memory): the cost when on.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ServerConnection } from '../src/bindings/connection/connection.js';
import { startRequest } from '../src/bindings/telemetry/operation-span.js';
import { traceRequests } from '../src/bindings/telemetry/propagate.js';
import { withReused } from '../src/bindings/telemetry/reused.js';
import { createHost } from '../src/index.js';
import { everythingEntry, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios, timeEach } from './stats.js';

const CALLS = 1000;
const REPEATS = 100_000;
const ROUNDS = 8;
const ECHO = { server: 'everything', tool: 'echo', arguments: { message: 'hi' } } as const;

export default async function telemetry(): Promise<Row[]> {
  const section = '21 telemetry';
  const { dir, remove } = tempDir('telemetry');
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, { everything: everythingEntry() }) });
  try {
    await host.call(ECHO);
    const connection = await host.withServer('everything', async (c: ServerConnection) => c);
    const sent = Promise.resolve();
    const wire = { send: (_message: never) => sent };
    traceRequests(wire);
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: ECHO.arguments } };
    const tool: string = ECHO.tool;
    // What one call adds, as the call path runs it (synchronously here: no I/O to wait for).
    const oneCall = (): Promise<void> =>
      withReused(true, () => {
        const traced = startRequest(`tools/call "${tool}"`, connection);
        const result = traced.run(() => wire.send(message as never));
        traced.end(undefined, false);
        return result;
      });
    const perCall = async (): Promise<number> => {
      const t0 = performance.now();
      for (let i = 0; i < REPEATS; i++) void oneCall();
      return (performance.now() - t0) / REPEATS;
    };
    const sides = { call: () => timeEach(CALLS, () => host.call(ECHO)), telemetry: perCall };
    const off = await alternate({ rounds: ROUNDS, warmupRounds: 1 }, sides);

    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 100_000 })] });
    provider.register();
    let on: typeof off;
    try {
      on = await alternate(
        { rounds: ROUNDS, warmupRounds: 1 },
        {
          call: () =>
            timeEach(CALLS, async () => {
              await host.call(ECHO);
              exporter.reset();
            }),
          telemetry: async () => {
            const t = await perCall();
            exporter.reset();
            return t;
          },
        },
      );
    } finally {
      trace.disable();
      context.disable();
      propagation.disable();
      await provider.shutdown();
    }
    return [
      row(section, 'host.call(echo), warm, per call (no SDK registered)', 'ms', off.call.samples),
      row(section, "a call's telemetry alone, no SDK (the API's no-ops), per call", 'ms', off.telemetry.perRound, { note: `${REPEATS} per round` }),
      row(
        section,
        'telemetry, no SDK / warm host.call',
        '%',
        pairedRatios(off.telemetry.perRound, off.call.perRound).map((x) => x * 100),
        {
          target: { max: 1, label: '≤ 1 %' },
        },
      ),
      row(section, 'host.call(echo), warm, per call (Node SDK recording every span)', 'ms', on.call.samples),
      row(section, "a call's telemetry alone, Node SDK recording, per call", 'ms', on.telemetry.perRound),
      row(
        section,
        'telemetry, SDK recording / warm host.call',
        '%',
        pairedRatios(on.telemetry.perRound, on.call.perRound).map((x) => x * 100),
      ),
    ];
  } finally {
    await host.close();
    remove();
  }
}
