/**
 * The spans of a connection's start: `berry.connection.start` (pool/opener.ts) over the whole of
 * it, retries and sign-ins included; under it `berry.spawn` (a stdio server's process start), the
 * handshake's CLIENT span (`server/discover` or `initialize`, over HTTP the connect itself), and
 * `berry.sign_in` while a sign-in is awaited. Counted: starts and failed starts.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { isBerryError } from '../../common/errors.js';
import { otel, registered } from './api.js';
import type { ResolvedServerConfig } from '../../config/index.js';
import { machineName, serverAttributes } from './attributes.js';
import { instruments, tracer } from './instruments.js';
import { startRequest, type TracedConnection } from './operation-span.js';

/** Runs `open` (one connection start of `config` on `machine`) under `berry.connection.start`. */
export async function traceStart<T>(config: ResolvedServerConfig, machine: string, mask: (text: string) => string, open: () => Promise<T>): Promise<T> {
  // Nothing registered through the API: no span, no metric (and the API is not loaded).
  if (registered() === undefined) return open();
  const meters = instruments();
  const attributes = meters.recording ? { 'berry.server': config.name, 'berry.machine': machineName(machine) } : undefined;
  if (attributes) meters.connectionStarts.add(1, attributes);
  const { context, SpanKind, trace } = otel();
  const span = tracer().startSpan('berry.connection.start', { kind: SpanKind.INTERNAL });
  if (span.isRecording()) span.setAttributes(serverAttributes(config, machineName(machine), mask));
  try {
    const result = await (span.isRecording() ? context.with(trace.setSpan(context.active(), span), open) : open());
    span.end();
    return result;
  } catch (error) {
    if (attributes) meters.connectionFailures.add(1, { ...attributes, 'error.type': codeOf(error) });
    fail(span, error, mask);
    throw error;
  }
}

/**
 * The handshake under its CLIENT span, named for the request that went out last (`initialized()`:
 * was initialize sent); a stdio transport's `start` (the spawn) gets a sibling `berry.spawn` span.
 */
export async function traceHandshake<T>(
  on: TracedConnection,
  transport: { start(): Promise<void> },
  stdio: boolean,
  initialized: () => boolean,
  connect: () => Promise<T>,
): Promise<T> {
  if (registered() === undefined) return connect();
  const { context, SpanKind, trace } = otel();
  const outer = context.active();
  if (stdio && trace.getSpan(outer)?.isRecording()) {
    const start = transport.start.bind(transport);
    transport.start = () => {
      const span = tracer().startSpan('berry.spawn', { kind: SpanKind.INTERNAL, attributes: on.spanAttributes }, outer);
      return start().then(
        () => span.end(),
        (error: unknown) => {
          fail(span, error, on.redact);
          throw error;
        },
      );
    };
  }
  const handshake = startRequest('server/discover', on);
  try {
    const result = await handshake.run(connect);
    handshake.rename(initialized() ? 'initialize' : 'server/discover', on.protocolVersion);
    handshake.end();
    return result;
  } catch (error) {
    handshake.rename(initialized() ? 'initialize' : 'server/discover', undefined);
    handshake.end(error);
    throw error;
  }
}

/** A sign-in the start waits for (the user's redirect, the code exchange) under `berry.sign_in`. */
export async function traceSignIn(attributes: Attributes, redact: (text: string) => string, signIn: () => Promise<void>): Promise<void> {
  if (registered() === undefined) return signIn();
  const span = tracer().startSpan('berry.sign_in', { kind: otel().SpanKind.INTERNAL, attributes });
  try {
    await signIn();
    span.end();
  } catch (error) {
    fail(span, error, redact);
    throw error;
  }
}

function codeOf(error: unknown): string {
  return isBerryError(error) ? error.code : '_OTHER';
}

function fail(span: Span, error: unknown, mask: (text: string) => string): void {
  if (span.isRecording()) {
    span.setAttribute('error.type', codeOf(error));
    span.setStatus({ code: otel().SpanStatusCode.ERROR, message: mask(error instanceof Error ? error.message : String(error)).slice(0, 1024) });
  }
  span.end();
}
