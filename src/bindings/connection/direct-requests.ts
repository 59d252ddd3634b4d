/**
 * `tools/call` on a 2025-11-25 stdio connection, sent beside the SDK's request funnel.
 *
 * The v2 client routes every request through its era codec, envelope and response funnel: on a
 * warm echo call that is ≈ 20 µs of CPU, a sixth of the whole call (docs/performance.md). In the
 * 2025 era a call needs none of it (no envelope, no `input_required`), so this sends the request on
 * the same transport and keeps what a call does need, as the SDK does it:
 * - an id the SDK never issues (from 2^30 up; the SDK counts from 0);
 * - the timeout, reset by each progress notification;
 * - cancellation: `notifications/cancelled`, then the caller's reason;
 * - the transport's close: every call in flight fails as the SDK's "Connection closed";
 * - the answer: a JSON-RPC error as the SDK's ProtocolError, a result checked (and defaulted) by
 *   the SDK's own CallToolResult schema, an invalid one as its InvalidResult.
 * Requests of the other methods, and calls in the 2026 era or over HTTP, stay with the SDK.
 */
import { ProtocolError as RpcError, SdkError, SdkErrorCode, type CallToolResult, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';
import { checkCallResult } from './call-result-check.js';
import { RequestOwners } from './request-owners.js';
import type { ElicitationHandler } from '../handlers.js';

const FIRST_ID = 2 ** 30;

export interface DirectCallOptions {
  readonly signal: AbortSignal;
  readonly timeout: number;
  /** The notification's params less its token, unchecked. */
  readonly onprogress?: (progress: unknown) => void;
}

interface Pending {
  readonly resolve: (result: CallToolResult) => void;
  readonly reject: (error: unknown) => void;
  readonly options: DirectCallOptions;
  /** When the call times out (performance.now()): its timeout after it was sent or last made progress. */
  deadline: number;
  readonly forget: () => void;
}

type Incoming = JSONRPCMessage & {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: { readonly progressToken?: unknown; readonly [key: string]: unknown };
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
};

export class DirectRequests {
  readonly #transport: Transport;
  /** Told when one of these calls was answered (RequestOwners keeps the calls in flight). */
  readonly #answered: (id: number) => void;
  readonly #pending = new Map<number, Pending>();
  /**
   * One timer for every call in flight, due at the earliest deadline: a setTimeout and a
   * clearTimeout of each call's own cost ≈ 1.5 µs of its turnaround (docs/performance.md). It
   * holds no process alive: the transport under these calls does while it is open.
   */
  #timer: NodeJS.Timeout | undefined;
  #due = Infinity;
  #next = FIRST_ID;
  #closed = false;

  /**
   * Installed after the SDK client connected: this handler then sees each message before the
   * client's, and hands it on unless it answers one of these calls.
   */
  constructor(transport: Transport, answered: (id: number) => void) {
    this.#transport = transport;
    this.#answered = answered;
    const sdkMessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.#take(message as Incoming)) sdkMessage?.(message, extra);
    };
    const sdkClose = transport.onclose;
    transport.onclose = () => {
      try {
        sdkClose?.();
      } finally {
        this.#close();
      }
    };
  }

  /** Sends `tools/call` of `tool` with `args`, owned by `owner` (its elicitations go to that handler; none: the host's). */
  callTool(tool: string, args: Record<string, unknown>, owner: ElicitationHandler | undefined, options: DirectCallOptions): Promise<CallToolResult> {
    return new Promise<CallToolResult>((resolve, reject) => {
      const { signal } = options;
      if (signal.aborted) return reject(signal.reason);
      if (this.#closed) return reject(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
      const id = this.#next++;
      // Built in its final shape: spreading params costs ≈ 3 µs a call on Node 20.
      const params: Record<string | symbol, unknown> = options.onprogress
        ? { name: tool, arguments: args, _meta: { progressToken: id } }
        : { name: tool, arguments: args };
      RequestOwners.own(params, owner);
      const message = { jsonrpc: '2.0' as const, id, method: 'tools/call', params };
      const onAbort = (): void => this.#cancel(id, signal.reason, String(signal.reason));
      signal.addEventListener('abort', onAbort);
      this.#pending.set(id, {
        resolve,
        reject,
        options,
        deadline: this.#deadline(options.timeout),
        forget: () => signal.removeEventListener('abort', onAbort),
      });
      this.#transport.send(message as JSONRPCMessage).catch((error: unknown) => this.#settle(id)?.reject(error));
    });
  }

  #deadline(timeout: number): number {
    const deadline = performance.now() + timeout;
    if (deadline < this.#due) this.#wakeAt(deadline);
    return deadline;
  }

  #wakeAt(at: number): void {
    clearTimeout(this.#timer);
    this.#due = at;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, at - performance.now()));
    this.#timer.unref();
  }

  /** Times out every call past its deadline, then waits for the next deadline (a call answered since has none). */
  #expire(): void {
    this.#timer = undefined;
    this.#due = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const [id, pending] of this.#pending) {
      const { deadline, options } = pending;
      if (deadline <= now) this.#cancel(id, new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: options.timeout }), 'Request timed out');
      else if (deadline < next) next = deadline;
    }
    if (next !== Infinity) this.#wakeAt(next);
  }

  /** Ends a call without its answer: the server is told, the caller gets `error`. */
  #cancel(id: number, error: unknown, reason: string): void {
    const pending = this.#settle(id);
    if (!pending) return;
    const cancelled = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: id, reason } };
    this.#transport.send(cancelled as JSONRPCMessage).catch(() => {});
    pending.reject(error);
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    pending.forget();
    this.#answered(id);
    return pending;
  }

  /** True when `message` belonged to one of these calls (and was handled here). */
  #take(message: Incoming): boolean {
    if (this.#pending.size === 0) return false;
    if (message.method === 'notifications/progress') {
      const token = message.params?.progressToken;
      const pending = typeof token === 'number' ? this.#pending.get(token) : undefined;
      if (!pending) return false;
      pending.deadline = this.#deadline(pending.options.timeout);
      const { progressToken: _token, ...progress } = message.params as { progressToken: number };
      pending.options.onprogress?.(progress);
      return true;
    }
    if (message.method !== undefined || typeof message.id !== 'number') return false;
    const pending = this.#settle(message.id);
    if (!pending) return false;
    if (message.error !== undefined) {
      pending.reject(RpcError.fromError(message.error.code, message.error.message, message.error.data));
      return true;
    }
    // The 2025 codec drops a stray resultType before the schema sees the result.
    let raw = message.result;
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'resultType' in raw) {
      const { resultType: _resultType, ...rest } = raw as Record<string, unknown>;
      raw = rest;
    }
    const checked = checkCallResult(raw);
    if (checked.issues === undefined) pending.resolve(checked.value);
    else pending.reject(new SdkError(SdkErrorCode.InvalidResult, `Invalid result for tools/call: ${checked.issues.map(issueText).join(', ')}`));
    return true;
  }

  #close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#due = Infinity;
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(error);
  }
}

/** An issue as the SDK writes it: `path.to.field: message`. */
function issueText(issue: StandardSchemaV1.Issue): string {
  const path = issue.path?.map((part) => String(typeof part === 'object' ? part.key : part)).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
