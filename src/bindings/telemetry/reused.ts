/** Whether an operation found its connection open (or opening): told to its request spans through the context. */
import { context, ProxyTracerProvider, trace } from '@opentelemetry/api';
import { CONNECTION_REUSED } from './operation-span.js';

/** The API's no-op provider, as a proxy hands it out before any SDK registers. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** True once an SDK registered a tracer provider (spans may be recorded). */
export function tracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

/** Runs `fn` with `berry.connection.reused` set for the request spans under it; with no SDK, just runs it. */
export function withReused<T>(reused: boolean, fn: () => Promise<T>): Promise<T> {
  if (!tracing()) return fn();
  return context.with(context.active().setValue(CONNECTION_REUSED, reused), fn);
}
