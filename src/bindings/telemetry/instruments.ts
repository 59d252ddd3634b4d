/**
 * The tracer and the metric instruments, through @opentelemetry/api alone: with no SDK registered
 * every one of them is the API's no-op, so nothing is recorded and a call pays a few no-op calls.
 */
import type { Counter, Histogram, Meter, MeterProvider, ProxyTracerProvider, Tracer, TracerProvider, UpDownCounter } from '@opentelemetry/api';
import { VERSION } from '../../common/version.js';
import { otel, registered } from './api.js';
import { createGauges } from './gauges.js';

const SCOPE = 'berry-mcp';

/** The API's no-op provider, as a proxy hands it out before any SDK registers. */
let noopTracerProvider: TracerProvider | undefined;
let tracerOf: TracerProvider | undefined;
let currentTracer: Tracer | undefined;

/**
 * The tracer of the provider registered now. Not a module-level ProxyTracer: that one keeps the
 * first provider it met for good, even once it is unregistered and another one registered.
 */
export function tracer(): Tracer {
  const delegate = (otel().trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
  if (delegate === tracerOf && currentTracer) return currentTracer;
  tracerOf = delegate;
  currentTracer = delegate.getTracer(SCOPE, VERSION);
  return currentTracer;
}

/** True while an SDK's tracer provider is registered (spans may be recorded). */
export function tracing(): boolean {
  const api = registered();
  if (api === undefined) return false;
  noopTracerProvider ??= new api.ProxyTracerProvider().getDelegate();
  return (api.trace.getTracerProvider() as ProxyTracerProvider).getDelegate() !== noopTracerProvider;
}

/** The conventions' advice for MCP durations (seconds). */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

export interface Instruments {
  /** Undefined while nothing is registered through the API. */
  readonly meter: Meter | undefined;
  /** False under the API's no-op meter: nothing to build attributes for. */
  readonly recording: boolean;
  /** `mcp.client.operation.duration`, per the MCP semantic conventions. */
  readonly operationDuration: Histogram;
  readonly runDuration: Histogram;
  readonly runsActive: UpDownCounter;
  readonly connectionStarts: Counter;
  readonly connectionFailures: Counter;
}

let provider: MeterProvider | undefined;
let current: Instruments | undefined;

const nothing = { record: () => {}, add: () => {} } as unknown as Histogram & UpDownCounter & Counter;
/** What the API's no-op meter would give, without loading the API. */
const NOT_RECORDING: Instruments = {
  meter: undefined,
  recording: false,
  operationDuration: nothing,
  runDuration: nothing,
  runsActive: nothing,
  connectionStarts: nothing,
  connectionFailures: nothing,
};

/** The instruments of the meter provider registered now (the metrics API has no proxy: a later SDK gets new ones). */
export function instruments(): Instruments {
  const api = registered();
  if (api === undefined) return NOT_RECORDING;
  const now = api.metrics.getMeterProvider();
  if (now === provider && current) return current;
  provider = now;
  const meter = now.getMeter(SCOPE, VERSION);
  current = {
    meter,
    recording: meter !== api.createNoopMeter(),
    operationDuration: meter.createHistogram('mcp.client.operation.duration', {
      description: 'Duration of an MCP request, as the client sees it.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    runDuration: meter.createHistogram('berry.run.duration', {
      description: 'Duration of a script run (host.run, a serve run), queue wait excluded.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    runsActive: meter.createUpDownCounter('berry.runs.active', { description: 'Script runs in flight.', unit: '{run}' }),
    connectionStarts: meter.createCounter('berry.connection.starts', { description: 'MCP server connections started.', unit: '{connection}' }),
    connectionFailures: meter.createCounter('berry.connection.failures', {
      description: 'MCP server connection starts that failed.',
      unit: '{connection}',
    }),
  };
  if (current.recording) createGauges(meter);
  return current;
}
