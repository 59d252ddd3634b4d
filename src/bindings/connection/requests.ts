/**
 * Requests on a connection: send (one request, the entry's timeout, typed errors), callTool (with
 * progress and a hard deadline), the sign-in a request may meet, and CallScope, the one deadline
 * and abort helper of a call (task calls use it too).
 */
import { specTypeSchemas, type CallToolResult, type Client, type RequestOptions, type Tool } from '@modelcontextprotocol/client';
import { headerDefinition } from '../catalog/header-annotations.js';
import type { ResolvedServerConfig } from '../../config/index.js';
import { type BerryError, CallTimeoutError, CancelledError, TransportClosedError, isBerryError } from '../../common/errors.js';
import { abortPromise, onAbort } from '../../common/abort.js';
import { authRequiredError, mapAuthError, type OAuthSession } from '../../auth/index.js';
import type { StdioDiagnostics } from '../../remote/transport/index.js';
import type { ProgressEvent } from '../contract.js';
import type { ElicitationHandler } from '../handlers.js';
import type { LogSink } from '../log.js';
import { isStreamLost, mapSdkError } from './failures.js';
import { RequestOwners } from './request-owners.js';
import { RequestSignal } from './request-signal.js';
import { closedDetail, tooLargeError } from './start/stdio-failure.js';
import { mapRevisionError } from './start/revision-errors.js';
import { answerInputRounds } from './input-rounds.js';
import type { Wire } from './wire.js';
import type { DirectRequests } from './direct-requests.js';
import type { ServerTextGate } from '../server-text/gate.js';
import { startRequest, type TracedConnection } from '../telemetry/operation-span.js';
import { argumentsAttribute } from '../telemetry/capture.js';

/** Past the entry's (progress-reset) timeout, a call still ends at this multiple of it. */
const HARD_DEADLINE_FACTOR = 10;
const CALL_RESULT = specTypeSchemas.CallToolResult;

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** The entry this call is for, named in its errors and progress (twins share a connection). @default config.name */
  readonly server?: string;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Answers the elicitations this call causes, in place of the connection's `onElicitation`. */
  readonly onElicitation?: ElicitationHandler | undefined;
  /** The call's arguments, masked, for the span's `gen_ai.tool.call.arguments` (otel.captureArguments); absent: not recorded. */
  readonly tracedArguments?: unknown;
}

/** What a request needs of its connection (ServerConnection). */
export interface RequestTarget extends TracedConnection {
  readonly config: ResolvedServerConfig;
  readonly client: Client;
  readonly owners: RequestOwners;
  /** tools/call beside the SDK's funnel (2025 era, stdio), else undefined. */
  readonly direct: DirectRequests | undefined;
  readonly redact: (text: string) => string;
  readonly gate: ServerTextGate;
  readonly session: OAuthSession | undefined;
  readonly wire: Wire;
  readonly stdio: StdioDiagnostics | undefined;
  readonly transportEnded: boolean;
  readonly log: LogSink;
  /** The revisions this connection offered: both, or the one its entry pins. */
  readonly offered: readonly string[];
  /** The listed tool of that name, if the tool list is settled (Mcp-Param-* headers need its schema). */
  toolNamed(name: string): Tool | undefined;
  /** True on a 2026-07-28 Streamable HTTP connection: annotated arguments travel as headers. */
  readonly mirrorsHeaders: boolean;
  markDead(reason: string): void;
}

/**
 * One call's signal: aborted with `cancelled()` when the caller's `signal` aborts, and with the
 * deadline's reason once a deadline is set and passes. dispose() ends both.
 */
export class CallScope {
  readonly #request = new RequestSignal();
  readonly #forget: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(signal: AbortSignal | undefined, cancelled: () => unknown) {
    const cancel = (): void => this.#request.abort(cancelled());
    if (signal?.aborted) cancel();
    this.#forget = signal ? onAbort(signal, cancel) : undefined;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  /** True once a deadline is set. */
  get hasDeadline(): boolean {
    return this.#timer !== undefined;
  }

  /** Aborts with `reason()` at `at` (ms since the epoch); the timer keeps no process alive. */
  deadline(at: number, reason: () => unknown): void {
    this.#timer = setTimeout(() => this.#request.abort(reason()), Math.max(0, at - Date.now()));
    this.#timer.unref();
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#forget?.();
  }
}

/** Waits for the sign-in the SDK started (the redirect, the code exchange); the caller's abort ends only its wait. */
export async function finishSignIn(target: RequestTarget, signal: AbortSignal | undefined): Promise<void> {
  const { session, wire } = target;
  if (!session || wire.kind !== 'http') throw authRequiredError(target.config.name);
  // Shared with other requests that met the same sign-in: this caller's abort ends only its wait.
  const completing = session.completeSignIn((code, iss) => wire.transport.finishAuth(code, iss));
  try {
    await (signal ? Promise.race([completing, abortPromise(signal, () => new CancelledError('The sign-in was cancelled.'))]) : completing);
  } catch (error) {
    throw mapAuthError(error, target.config.name, target.redact) ?? mapRequestError(target, error, 'sign-in', signal);
  }
}

// A request that met a sign-in (expired session, step-up to more scopes) continues after it, once.
async function withSignIn<T>(target: RequestTarget, run: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const session = target.session;
    if (!session?.pendingSignIn) throw error;
    await finishSignIn(target, signal);
    // The retry starts no sign-in of its own: the SDK asks again for the same step-up (a loop).
    session.signInAllowed = false;
    try {
      return await run();
    } finally {
      session.signInAllowed = true;
      if (session.pendingSignIn && !session.signInAwaited) await session.close();
    }
  }
}

/** Sends one request with the entry's timeout; failures become typed errors naming `server` (dead transports evict). */
export async function send<T>(
  target: RequestTarget,
  operation: string,
  run: (options: { timeout: number; signal?: AbortSignal }) => Promise<T>,
  signal: AbortSignal | undefined,
  server: string,
): Promise<T> {
  // The SDK never removes the listener it adds to a request's signal: a long-lived signal (a
  // listing's, a run's) gets a RequestSignal of its own per request, behind one shared listener.
  const request = signal ? new RequestSignal() : undefined;
  const forget = signal && request ? onAbort(signal, () => request.abort(signal.reason)) : undefined;
  if (signal?.aborted) request?.abort(signal.reason);
  const traced = startRequest(operation, target);
  try {
    const result = await traced.run(() =>
      withSignIn(target, () => run({ timeout: target.config.timeoutMs, ...(request ? { signal: request.signal } : {}) }), signal),
    );
    traced.end();
    return result;
  } catch (error) {
    const mapped = mapRequestError(target, error, operation, signal, server);
    traced.end(mapped);
    throw mapped;
  } finally {
    forget?.();
  }
}

export async function callTool(target: RequestTarget, tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
  const timeoutMs = target.config.timeoutMs;
  const server = options.server ?? target.config.name;
  const scope = new CallScope(options.signal, () => new CancelledError(`Call of "${tool}" on server "${server}" was cancelled.`));
  // Without progress the request's own timeout (the SDK's, or the direct path's) ends the call
  // first; progress resets that timeout, and the SDK's maxTotalTimeout is only checked when
  // progress arrives: so from the first progress on, our own hard deadline (counted from the
  // start) bounds the call.
  const started = Date.now();
  const hardDeadlineMs = timeoutMs * HARD_DEADLINE_FACTOR;
  const armDeadline = (): void =>
    scope.deadline(
      started + hardDeadlineMs,
      () =>
        new CallTimeoutError(
          `Call of "${tool}" on server "${server}" passed its hard deadline of ${hardDeadlineMs / 1000} s (${HARD_DEADLINE_FACTOR}× the ${timeoutMs / 1000} s timeout) and was cancelled.`,
          hardDeadlineMs,
        ),
    );
  const onProgress = options.onProgress;
  const request = {
    signal: scope.signal,
    timeout: timeoutMs,
    resetTimeoutOnProgress: true,
    // As the server sent it: the gate checks it (a malformed one is dropped), masks and bounds it.
    onprogress: (p: unknown) => {
      if (!scope.hasDeadline) armDeadline();
      if (onProgress === undefined) return;
      const event = target.gate.progress(server, tool, p);
      if (event === undefined) return;
      try {
        onProgress(event);
      } catch {
        // A failing listener loses that event; nothing throws into the transport's message handler.
      }
    },
  };
  const traced = startRequest(`tools/call "${tool}"`, target);
  if (options.tracedArguments !== undefined && traced.span?.isRecording()) {
    traced.span.setAttribute('gen_ai.tool.call.arguments', argumentsAttribute(options.tracedArguments));
  }
  try {
    const result = await traced.run(() => sendCall(target, tool, args, options, request, scope));
    traced.end(undefined, result.isError === true);
    return result;
  } catch (error) {
    const mapped = mapRequestError(target, error, `tools/call "${tool}"`, scope.signal, server);
    traced.end(mapped);
    throw mapped;
  } finally {
    scope.dispose();
  }
}

type CallRequestOptions = RequestOptions & { readonly signal: AbortSignal; readonly timeout: number; readonly onprogress: (p: unknown) => void };

/** Not async: the call's promise as it is (an async layer is one more microtask turn on every call's way back). */
function sendCall(target: RequestTarget, tool: string, args: Record<string, unknown>, options: CallOptions, request: CallRequestOptions, scope: CallScope) {
  // A 2025 stdio call goes beside the SDK's funnel (direct-requests.ts): no sign-in and no
  // input_required there. Only a tool whose arguments travel as headers (2026-07-28 over HTTP)
  // needs the SDK's callTool; other calls name their result schema (measured: faster than the
  // method-keyed lookup).
  const { client, direct } = target;
  if (direct) return direct.callTool(tool, args, options.onElicitation, request);
  const owner = RequestOwners.tag(options.onElicitation);
  const listed = target.mirrorsHeaders ? target.toolNamed(tool) : undefined;
  const definition = listed ? headerDefinition(listed) : undefined;
  const send = (params: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult> =>
    definition
      ? client.callTool(params as { name: string }, { ...options, toolDefinition: definition })
      : client.request({ method: 'tools/call', params }, CALL_RESULT, options);
  return withSignIn(
    target,
    () =>
      answerInputRounds(
        target,
        options.onElicitation,
        (extra, allow) => send({ name: tool, arguments: args, ...extra, ...owner }, { ...allow, ...request }),
        scope.signal,
      ),
    scope.signal,
  ) as Promise<CallToolResult>;
}

/** A failed request as a typed error; a dead session or transport marks the connection dead. */
export function mapRequestError(
  target: RequestTarget,
  error: unknown,
  operation: string,
  signal: AbortSignal | undefined,
  server = target.config.name,
): BerryError {
  if (signal?.aborted && isBerryError(signal.reason)) return signal.reason;
  if (signal?.aborted) return new CancelledError(`${operation} on server "${server}" was cancelled.`);
  const { stdio, redact } = target;
  const tooLarge = tooLargeError(stdio, operation, server);
  if (tooLarge) return tooLarge;
  const authError = target.session ? mapAuthError(error, server, redact) : undefined;
  if (authError) return authError;
  const revision = mapRevisionError(error, { server, operation, redact, offered: target.offered });
  // A server that stopped speaking the negotiated revision is probed again on the next operation.
  if (revision?.code === 'MCP_PROTOCOL_VERSION_UNSUPPORTED') target.markDead('protocol revision refused');
  if (revision) return revision;
  const mapped = mapSdkError(error, {
    server,
    operation,
    timeoutMs: target.config.timeoutMs,
    redact,
    closedDetail: () => closedDetail(stdio, redact),
    transportClosed: () => target.transportEnded,
  });
  // A timeout behind an endless unterminated line is a stuck transport, not a slow tool. Half the
  // timeout: the line may have begun just after this request was sent.
  if (mapped.code === 'MCP_TIMEOUT' && stdio?.abandonIfStuck(target.config.timeoutMs / 2)) {
    return new TransportClosedError(
      `${mapped.message.replace(/ Raise "timeout".*$/, '')} Meanwhile ${closedDetail(stdio, redact)}. The next operation reconnects.`,
      '',
      { cause: error },
    );
  }
  // A dead session or transport is replaced on the next operation; the call itself is not replayed.
  // Anything else (a JSON-RPC error, a malformed result) failed this request only; a lost response
  // stream is that call's loss: the session itself is still there.
  if (mapped.code === 'MCP_SESSION_EXPIRED' || (mapped.code === 'MCP_TRANSPORT_CLOSED' && !isStreamLost(error))) {
    target.markDead(mapped.code === 'MCP_SESSION_EXPIRED' ? 'session expired' : 'transport failed');
  }
  return mapped;
}
