/**
 * A script run's span (`berry.run`) and metrics (duration, runs in flight). The span's context is
 * handed to the run's host functions, so every MCP request the script makes is its child, wherever
 * the script runs (this thread's isolate, a serve worker whose calls come back over IPC).
 */
import type { Context, Span } from '@opentelemetry/api';
import { otel } from './api.js';
import { instruments, tracer, tracing } from './instruments.js';

/** What a run's record says of its outcome (runtime's RunRecord, structurally). */
interface RunOutcome {
  readonly ok: boolean;
  readonly error?: { readonly code?: string } | undefined;
}

export class RunTrace {
  readonly #span: Span | undefined;
  /** The context the run's calls continue: undefined with no SDK (nothing to continue). */
  readonly context: Context | undefined;
  readonly #started = performance.now();
  readonly #recording: boolean;

  constructor() {
    const meters = instruments();
    this.#recording = meters.recording;
    if (this.#recording) meters.runsActive.add(1);
    if (!tracing()) return;
    const { context, SpanKind, trace } = otel();
    const parent = context.active();
    this.#span = tracer().startSpan('berry.run', { kind: SpanKind.INTERNAL }, parent);
    this.context = trace.setSpan(parent, this.#span);
  }

  /** `fn` under the run's span (each host function of the run is called through this). */
  within<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    const active = this.context;
    if (active === undefined) return fn;
    const { context } = otel();
    return (...args) => context.with(active, () => fn(...args));
  }

  end(record: RunOutcome | undefined, error?: unknown): void {
    const code = record ? (record.ok ? undefined : (record.error?.code ?? '_OTHER')) : error === undefined ? undefined : '_OTHER';
    const span = this.#span;
    if (span?.isRecording()) {
      // The error's code only: a script's error message may carry anything the script saw.
      if (code !== undefined) {
        span.setAttribute('error.type', code);
        span.setStatus({ code: otel().SpanStatusCode.ERROR });
      }
    }
    span?.end();
    if (!this.#recording) return;
    const meters = instruments();
    meters.runsActive.add(-1);
    meters.runDuration.record((performance.now() - this.#started) / 1000, code === undefined ? {} : { 'error.type': code });
  }
}
