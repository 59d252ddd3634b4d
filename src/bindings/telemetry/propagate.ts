/**
 * Trace context across the wire, as the MCP semantic conventions ask: each request carries the
 * context of the span it was sent under in `params._meta` (`traceparent`, `tracestate`, and
 * whatever else the registered propagator writes, such as `baggage`), over stdio, HTTP and SSH
 * alike; HTTP requests also carry it as headers. Every request a connection sends passes its
 * transport's `send`, the SDK's and the direct path's (direct-requests.ts) alike: this wraps it.
 */
import type { Context, Span } from '@opentelemetry/api';
import { otel, registered } from './api.js';
import { REQUEST_SPAN } from './operation-span.js';

/** A W3C traceparent is 55 characters; tracestate is capped at 512 by the spec. Longer is refused unread. */
const MAX_CARRIER_VALUE = 512;

interface Sendable {
  send(message: never, options?: never): Promise<void>;
}

type Outgoing = { method?: unknown; id?: unknown; params?: Record<string, unknown> };

/** Wraps `transport.send` so that each request and notification carries the active trace context in `_meta`. */
export function traceRequests<T extends Sendable>(transport: T): void {
  const send = transport.send.bind(transport) as (message: unknown, options?: unknown) => Promise<void>;
  transport.send = ((message: Outgoing, options?: unknown) => {
    const api = typeof message.method === 'string' ? registered() : undefined;
    if (api !== undefined) {
      const active = api.context.active();
      // No span, no context to carry (and, with no SDK, never one): the message goes as it is.
      if (api.trace.getSpanContext(active) !== undefined) inject(message, active);
    }
    return send(message, options);
  }) as T['send'];
}

function inject(message: Outgoing, active: Context): void {
  const carrier: Record<string, string> = {};
  otel().propagation.inject(active, carrier);
  const span = active.getValue(REQUEST_SPAN) as Span | undefined;
  if (span !== undefined && message.id !== undefined && span.isRecording()) span.setAttribute('jsonrpc.request.id', String(message.id));
  if (Object.keys(carrier).length === 0) return;
  const params = message.params ?? {};
  const meta = params._meta;
  // The message is this request's own, built for this send: its params get a new _meta.
  params._meta = meta !== null && typeof meta === 'object' ? { ...(meta as object), ...carrier } : carrier;
  message.params = params;
}

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** Wraps an HTTP transport's fetch so that each request carries the active trace context as headers (`traceparent`). */
export function traceFetch<F extends Fetch>(fetch: F): F {
  return (async (input: string | URL, init?: RequestInit) => {
    const api = registered();
    const active = api?.context.active();
    if (api === undefined || active === undefined || api.trace.getSpanContext(active) === undefined) return fetch(input, init);
    const carrier: Record<string, string> = {};
    api.propagation.inject(active, carrier);
    if (Object.keys(carrier).length === 0) return fetch(input, init);
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(carrier)) headers.set(name, value);
    return fetch(input, { ...init, headers });
  }) as F;
}

/**
 * The context a received request continues: its `_meta`'s trace context, else its HTTP headers',
 * else none (the root). Only string values of a sane length are read; the registered propagator
 * then validates them (a malformed traceparent gives no parent).
 */
export function parentContext(meta: unknown, headers?: { get(name: string): string | null }): Context {
  const fromMeta = carrierOf(meta !== null && typeof meta === 'object' ? (name) => (meta as Record<string, unknown>)[name] : undefined);
  const carrier = fromMeta ?? carrierOf(headers ? (name) => headers.get(name) : undefined);
  const { propagation, ROOT_CONTEXT } = otel();
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

function carrierOf(read: ((name: string) => unknown) | undefined): Record<string, string> | undefined {
  if (read === undefined) return undefined;
  const traceparent = read('traceparent');
  if (typeof traceparent !== 'string' || traceparent.length > MAX_CARRIER_VALUE) return undefined;
  const carrier: Record<string, string> = { traceparent };
  for (const name of ['tracestate', 'baggage']) {
    const value = read(name);
    if (typeof value === 'string' && value.length <= MAX_CARRIER_VALUE) carrier[name] = value;
  }
  return carrier;
}
