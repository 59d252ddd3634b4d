// A loopback OTLP/HTTP receiver for the JSON protocol (OTEL_EXPORTER_OTLP_PROTOCOL=http/json):
// keeps every export request's body, answers 200 `{}` as a collector does.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  readonly status?: { code?: number; message?: string };
}

export interface OtlpReceiver {
  /** http://127.0.0.1:N (OTEL_EXPORTER_OTLP_ENDPOINT: the exporters add /v1/traces, /v1/metrics). */
  readonly endpoint: string;
  /** Every span received so far. */
  spans(): OtlpSpan[];
  /** Names of every metric received so far. */
  metricNames(): Set<string>;
  /** The raw bodies, by path. */
  bodies(path: string): unknown[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received = new Map<string, unknown[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        received.set(path, [...(received.get(path) ?? []), body]);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const bodies = (path: string): unknown[] => received.get(path) ?? [];
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    spans: () =>
      bodies('/v1/traces').flatMap((body) =>
        ((body as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> }).resourceSpans ?? []).flatMap((r) =>
          (r.scopeSpans ?? []).flatMap((s) => s.spans ?? []),
        ),
      ),
    metricNames: () =>
      new Set(
        bodies('/v1/metrics').flatMap((body) =>
          ((body as { resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: Array<{ name: string }> }> }> }).resourceMetrics ?? []).flatMap((r) =>
            (r.scopeMetrics ?? []).flatMap((s) => (s.metrics ?? []).map((m) => m.name)),
          ),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An OTLP attribute's value as a plain value (stringValue, intValue…). */
export function otlpAttribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
}
