/**
 * The span and the duration of one MCP request (the conventions' CLIENT span `{method} {target}`),
 * started where requests.ts sends it. Made active around the request, so that the wire
 * (propagate.ts) puts its context in the request's `_meta` and names its `jsonrpc.request.id`.
 */
import type { Attributes, Context, Span } from '@opentelemetry/api';
import { isBerryError } from '../../common/errors.js';
import { otel, registered } from './api.js';
import { instruments } from './instruments.js';
import { tracer } from './instruments.js';

// Context keys are what the API's createContextKey makes (Symbol.for), without loading the API.
/** The context value that marks an MCP request's own span. */
export const REQUEST_SPAN = Symbol.for('berry-mcp request span');
/** Set by the host around one operation: whether its connection was open, or opening, before it began. */
export const CONNECTION_REUSED = Symbol.for('berry-mcp connection reused');
/** A status description is the (masked) error message, cut to this many characters. */
const MAX_STATUS_CHARS = 1024;

/** What a request's span needs to know of its connection. */
export interface TracedConnection {
  /** berry.server, berry.machine, network.transport, server.address / server.port. */
  readonly spanAttributes: Attributes;
  readonly protocolVersion: string | undefined;
  readonly sessionId: string | undefined;
  /** Masks the config's secrets in a text (an error message). */
  readonly redact: (text: string) => string;
}

export class RequestTrace {
  /** Undefined while nothing is registered through the API (no span at all, not even a no-op one). */
  readonly #span: Span | undefined;
  readonly #context: Context | undefined;
  #metric: Attributes | undefined;
  readonly #started: number;
  readonly #redact: (text: string) => string;

  constructor(span: Span | undefined, active: Context | undefined, metric: Attributes | undefined, redact: (text: string) => string) {
    this.#span = span;
    this.#context = active;
    this.#metric = metric;
    this.#redact = redact;
    this.#started = metric ? performance.now() : 0;
  }

  get span(): Span | undefined {
    return this.#span;
  }

  /** Runs `fn` with this request's span active (not even that with no SDK: nothing would read it). */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.#context === undefined ? fn() : otel().context.with(this.#context, fn);
  }

  /**
   * Names the request that went out after all (a handshake's `server/discover` fell back to
   * `initialize`), and the revision it negotiated.
   */
  rename(method: string, protocolVersion: string | undefined): void {
    const version = protocolVersion === undefined ? {} : { 'mcp.protocol.version': protocolVersion };
    if (this.#span?.isRecording()) {
      this.#span.updateName(method);
      this.#span.setAttributes({ 'mcp.method.name': method, ...version });
    }
    if (this.#metric) this.#metric = { ...this.#metric, 'mcp.method.name': method, ...version };
  }

  /**
   * Ends the span: `error` (a coded BerryError) sets error.type, the JSON-RPC code and the masked
   * message; a tool's own error result (`isError`), error.type `tool_error` (the conventions' value).
   */
  end(error?: unknown, toolError = false): void {
    const span = this.#span;
    if (span === undefined) return;
    const code = error === undefined ? (toolError ? 'tool_error' : undefined) : isBerryError(error) ? error.code : '_OTHER';
    const { SpanStatusCode } = otel();
    if (code === 'tool_error' && span.isRecording()) {
      span.setAttribute('error.type', code);
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else if (code !== undefined && span.isRecording()) {
      span.setAttribute('error.type', code);
      const rpc = rpcCode(error);
      if (rpc !== undefined) span.setAttribute('rpc.response.status_code', rpc);
      const message = this.#redact(error instanceof Error ? error.message : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, MAX_STATUS_CHARS) });
    }
    span.end();
    const metric = this.#metric;
    if (metric === undefined) return;
    const seconds = (performance.now() - this.#started) / 1000;
    instruments().operationDuration.record(seconds, code === undefined ? metric : { ...metric, 'error.type': code });
  }
}

/**
 * Starts the span of `operation` as requests.ts names it: `tools/list`, `tools/call "echo"`,
 * `prompts/get "p"`, `resources/read "file:///x"`, `tasks/get "tool"` (the method, then the target quoted).
 */
export function startRequest(operation: string, on: TracedConnection): RequestTrace {
  const api = registered();
  if (api === undefined) return new RequestTrace(undefined, undefined, undefined, on.redact);
  const { context, SpanKind, trace } = api;
  const parent = context.active();
  const recordsMetrics = instruments().recording;
  const span = tracer().startSpan(operation, { kind: SpanKind.CLIENT }, parent);
  const recording = span.isRecording();
  if (!recording && !recordsMetrics) {
    // No SDK: the span is a no-op; only a parent someone else traces is carried on.
    return new RequestTrace(span, trace.getSpanContext(parent) ? trace.setSpan(parent, span) : undefined, undefined, on.redact);
  }
  const attributes = requestAttributes(operation, on);
  const name = spanName(attributes);
  if (recording) {
    span.updateName(name);
    span.setAttributes(attributes);
    const reused = parent.getValue(CONNECTION_REUSED);
    if (typeof reused === 'boolean') span.setAttribute('berry.connection.reused', reused);
    if (on.sessionId !== undefined) span.setAttribute('mcp.session.id', on.sessionId);
  }
  const active = trace.setSpan(parent, span).setValue(REQUEST_SPAN, span);
  return new RequestTrace(span, active, recordsMetrics ? metricAttributes(attributes) : undefined, on.redact);
}

function requestAttributes(operation: string, on: TracedConnection): Attributes {
  const space = operation.indexOf(' ');
  const method = space < 0 ? operation : operation.slice(0, space);
  const attributes: Attributes = { 'mcp.method.name': method, ...on.spanAttributes };
  if (on.protocolVersion !== undefined) attributes['mcp.protocol.version'] = on.protocolVersion;
  const open = operation.indexOf('"');
  const close = operation.lastIndexOf('"');
  if (open < 0 || close <= open) return attributes;
  const target = operation.slice(open + 1, close);
  if (method === 'tools/call' || method.startsWith('tasks/')) attributes['gen_ai.tool.name'] = target;
  if (method === 'tools/call') attributes['gen_ai.operation.name'] = 'execute_tool';
  else if (method === 'prompts/get') attributes['gen_ai.prompt.name'] = target;
  // A URI may carry user data: masked like every other output.
  else if (method.startsWith('resources/')) attributes['mcp.resource.uri'] = on.redact(target);
  return attributes;
}

/** The metric's: the span's less the resource URI (opt-in for the metric in the conventions: high cardinality). */
function metricAttributes(attributes: Attributes): Attributes {
  if (attributes['mcp.resource.uri'] === undefined) return attributes;
  const { 'mcp.resource.uri': _uri, ...rest } = attributes;
  return rest;
}

/** `{mcp.method.name} {target}`: the tool or prompt name; never the resource URI (high cardinality). */
function spanName(attributes: Attributes): string {
  const method = attributes['mcp.method.name'] as string;
  const target = attributes['gen_ai.tool.name'] ?? attributes['gen_ai.prompt.name'];
  return target === undefined ? method : `${method} ${String(target)}`;
}

/** The JSON-RPC error code the server answered with, if a cause in the chain carries one. */
function rpcCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    // berry-mcp's ProtocolError keeps it as rpcCode; the SDK's errors as code.
    const { rpcCode, code } = current as { rpcCode?: unknown; code?: unknown };
    if (typeof rpcCode === 'number' && Number.isInteger(rpcCode)) return String(rpcCode);
    if (typeof code === 'number' && Number.isInteger(code)) return String(code);
    current = current.cause;
  }
  return undefined;
}
