// The real OpenTelemetry SDK for a suite: a Node tracer provider (AsyncLocalStorage context, W3C
// propagators) exporting to memory, and a meter provider read on demand. Registered globally in
// `before`, unregistered in `after`: suites before and after run with the API's no-ops.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface OtelCapture {
  /** Spans ended so far. */
  spans(): ReadableSpan[];
  reset(): void;
  /** Collects the metrics now. */
  metrics(): Promise<ResourceMetrics>;
}

export function useOtel(): OtelCapture {
  const exporter = new InMemorySpanExporter();
  let provider: NodeTracerProvider | undefined;
  let meters: MeterProvider | undefined;
  let reader: PeriodicExportingMetricReader | undefined;
  before(() => {
    provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register();
    reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
    meters = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(meters);
  });
  after(async () => {
    trace.disable();
    context.disable();
    propagation.disable();
    metrics.disable();
    await provider?.shutdown();
    await meters?.shutdown();
  });
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    metrics: async () => {
      const { resourceMetrics, errors } = await reader!.collect();
      if (errors.length > 0) throw errors[0];
      return resourceMetrics;
    },
  };
}

/** The data points of metric `name`, with their attributes. */
export function pointsOf(resource: ResourceMetrics, name: string): Array<{ attributes: Record<string, unknown>; value: unknown }> {
  const points = [];
  for (const scope of resource.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== name) continue;
      for (const point of metric.dataPoints) points.push({ attributes: point.attributes as Record<string, unknown>, value: point.value });
    }
  }
  return points;
}

/** Everything a span shows a collector, as one string (to look for a secret in). */
export function spanText(span: ReadableSpan): string {
  return JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
    links: span.links,
    resource: span.resource.attributes,
  });
}
