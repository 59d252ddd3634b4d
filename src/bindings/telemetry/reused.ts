/** Whether an operation found its connection open (or opening): told to its request spans through the context. */
import { otel } from './api.js';
import { tracing } from './instruments.js';
import { CONNECTION_REUSED } from './operation-span.js';

/** Runs `fn` with `berry.connection.reused` set for the request spans under it; with no SDK, just runs it. */
export function withReused<T>(reused: boolean, fn: () => Promise<T>): Promise<T> {
  if (!tracing()) return fn();
  const { context } = otel();
  return context.with(context.active().setValue(CONNECTION_REUSED, reused), fn);
}
