/**
 * The official OpenTelemetry Node SDK, started for `berry-mcp` (serve and every command) when the
 * standard OTEL_* variables ask for it (otel-env.ts). Loaded by a dynamic import only then. It
 * reads the exporters, protocol (`http/protobuf`, `http/json`, `grpc`), endpoint, headers, sampler
 * and resource from the environment; berry-mcp adds no instrumentation of Node's own modules.
 */
import type { NodeSDK } from '@opentelemetry/sdk-node';

/** How long the last export may take when berry-mcp exits (a collector that is down must not hold the exit). */
const SHUTDOWN_MS = 5000;

export interface Telemetry {
  shutdown(): Promise<void>;
}

export async function startTelemetry(env: NodeJS.ProcessEnv): Promise<Telemetry> {
  const { NodeSDK, resources } = await import('@opentelemetry/sdk-node');
  const sdk: NodeSDK = new NodeSDK({
    // OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) names it otherwise.
    ...(env.OTEL_SERVICE_NAME || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '') ? {} : { serviceName: 'berry-mcp' }),
    // Not the process detector unless asked (OTEL_NODE_RESOURCE_DETECTORS): process.command_args
    // would put the command line on every span, and `call KEY=VALUE` may hold a secret.
    ...(env.OTEL_NODE_RESOURCE_DETECTORS ? {} : { resourceDetectors: [resources.envDetector, resources.hostDetector, resources.osDetector] }),
    instrumentations: [],
  });
  sdk.start();
  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_MS);
        timer.unref();
      });
      await Promise.race([sdk.shutdown().catch(() => {}), late]);
      clearTimeout(timer);
    },
  };
}
