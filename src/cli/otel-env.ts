/**
 * Whether the standard OpenTelemetry variables ask for an export: an OTLP endpoint, or an exporter
 * named in OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER; never with OTEL_SDK_DISABLED=true. Read
 * before anything of the SDK loads: without them, `--help`, `run` and `serve` load none of it.
 */
const ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'];
const EXPORTERS = ['OTEL_TRACES_EXPORTER', 'OTEL_METRICS_EXPORTER'];

export function otelRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (ENDPOINTS.some((name) => (env[name] ?? '').trim() !== '')) return true;
  return EXPORTERS.some((name) => {
    const names = (env[name] ?? '').split(',').map((part) => part.trim());
    return names.some((part) => part !== '' && part !== 'none');
  });
}
