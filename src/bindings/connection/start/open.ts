/**
 * Opening a connection: the transport its entry asks for, the era (see era.ts) and the handshake
 * under the entry's init timeout, one sign-in and reconnect when the server asks for it, and (HTTP,
 * 2025 era) a short wait for the GET event stream. A failed start is described by its cause (exit,
 * stderr, timeout, status, the revisions each side speaks).
 */
import { Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { valueRedactorOfSecrets, type ResolvedServerConfig } from '../../../config/index.js';
import { ProtocolVersionError } from '../../../common/errors.js';
import { MachineStdioTransport, createHttpTransport, type HttpStatusError } from '../../../remote/transport/index.js';
import { confineSpawnSpec, type Machine } from '../../../remote/machine/index.js';
import { onAbort, settlesWithin } from '../../../common/abort.js';
import { VERSION } from '../../../common/version.js';
import { mapAuthError } from '../../../auth/index.js';
import { createSession, type ConnectionAuthOptions } from './oauth-session.js';
import { ELICITATION_CAPABILITIES, installElicitation } from '../../operations/elicitation.js';
import type { ElicitationHandler } from '../../handlers.js';
import { RequestOwners } from '../request-owners.js';
import { DirectRequests } from '../direct-requests.js';
import type { LogSink } from '../../log.js';
import { describeFailure, isSessionExpired } from '../failures.js';
import { ServerConnection } from '../connection.js';
import { finishSignIn } from '../requests.js';
import type { Wire } from '../wire.js';
import { eraPlan, type EraSlot } from './era.js';
import { isLateProbeAnswer, ProbeWatch, watchInitialize } from './probe-outcome.js';
import { startError } from './start-error.js';
import { listenForChanges } from '../listen-stream.js';
import { isTappedProgressNoise, tapTaskProgress } from '../task-progress.js';
import { followingGate, masksOf, ServerTextGate } from '../../server-text/gate.js';
import { traceFetch, traceRequests } from '../../telemetry/propagate.js';
import { traceHandshake, traceSignIn } from '../../telemetry/start-spans.js';

const CLIENT_INFO = { name: 'berry-mcp', version: VERSION };
/** How long a new HTTP connection waits for its GET event stream before it is used anyway. */
const EVENT_STREAM_WAIT_MS = 2000;

export interface OpenConnectionOptions {
  readonly machine: Machine;
  readonly config: ResolvedServerConfig;
  readonly log: LogSink;
  readonly signal?: AbortSignal;
  /** Longest message a stdio server may send (one line of its stdout). */
  readonly maxMessageBytes?: number;
  /** The gate of the config its host read last: all servers' secrets (they share the environment). @default the entry's own secrets */
  readonly gate?: () => ServerTextGate;
  readonly auth?: ConnectionAuthOptions;
  /** Set on the reconnect after a sign-in: a second sign-in in one open is refused (no loops). */
  readonly signedIn?: boolean;
  /** Answers the server's `elicitation/create`; without it every elicitation is declined. */
  readonly onElicitation?: ElicitationHandler | undefined;
  /** Where the era verdict of this connection's key is kept (`"protocol": "auto"` only). */
  readonly era?: EraSlot | undefined;
  /** Set on the reconnect after the `server/discover` probe killed the server or got no answer: speak 2025 at once. */
  readonly skipProbe?: boolean;
  /** Set on the reconnect after such a server refused `initialize`, speaking 2026-07-28: probe for that alone, with the rest of the budget. */
  readonly probeModern?: boolean;
  /** When the start must be done (a reconnect within one start keeps the first one's). @default now + initTimeoutMs */
  readonly deadline?: number;
}

/** Opens and initializes one MCP session with the server of `options.config`. */
export async function openConnection(options: OpenConnectionOptions): Promise<ServerConnection> {
  const { config, machine } = options;
  const session = createSession(machine, config, options.auth);
  // Everything this server says goes out through its gate (server-text/gate.ts), OAuth tokens masked too.
  const gate = followingGate(options.gate ?? ownGate(config), session ? (text) => session.redact(text) : undefined);
  const redact = (text: string): string => gate.piece(text);
  const log: LogSink = (event) => options.log({ ...event, message: gate.logLine(event.message) });
  const started = Date.now();
  const deadline = options.deadline ?? started + config.initTimeoutMs;
  const budgetMs = Math.max(1, deadline - started);
  let eventStreamSettled: () => void = () => {};
  const eventStream = new Promise<void>((resolve) => (eventStreamSettled = resolve));
  const owners = new RequestOwners(options.onElicitation);
  // The last error status the SDK read itself (2026-07-28 wire): an era probe answered with an error page.
  let modernStatus: HttpStatusError | undefined;
  const prior = options.skipProbe ? { kind: 'legacy' as const } : config.protocol === 'auto' ? options.era?.memory.get(options.era.key) : undefined;
  const plan = eraPlan(options.probeModern ? '2026-07-28' : config.protocol, budgetMs, config.kind);
  const probe = config.kind === 'http' && plan.probeMs > 0 && !prior ? new ProbeWatch(plan.probeMs) : undefined;
  const wire: Wire =
    config.kind === 'stdio'
      ? stdioWire(
          new MachineStdioTransport({
            machine,
            spec: await confineSpawnSpec(
              machine,
              config.name,
              { command: config.command, args: config.args, env: config.env, cwd: config.cwd },
              config.sandbox,
              options.signal,
            ),
            onStderr: (text) => log({ server: config.name, kind: 'stderr', message: text }),
            ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes }),
          }),
        )
      : {
          kind: 'http',
          transport: createHttpTransport({
            machine,
            url: config.url,
            headers: config.headers,
            onEventStream: () => eventStreamSettled(),
            onServerRequest: (id, related) => owners.relate(id, related),
            onModernErrorStatus: (error) => (modernStatus = error),
            // The probe's silence is timed under the OAuth session's fetch: its refreshes and sign-ins do not count.
            // Each POST carries the trace context as headers too (telemetry/propagate.ts).
            wrapFetch: (fetch) => {
              const watched = probe ? probe.wrap(traceFetch(fetch)) : traceFetch(fetch);
              return session ? session.wrapFetch(watched) : watched;
            },
            // The session's provider checks the issuer (auth/issuer-check.ts), the 2025-03-26 fallback included.
            ...(session ? { authProvider: session, providerChecksIssuer: true } : {}),
          }),
        };
  const transport = wire.transport;
  const initializeSent = watchInitialize(transport);
  traceRequests(transport);
  // input_required rounds are answered in the call that met them (input-rounds.ts), not by the SDK.
  const client = new Client(CLIENT_INFO, {
    capabilities: ELICITATION_CAPABILITIES,
    versionNegotiation: plan.versionNegotiation,
    inputRequired: { autoFulfill: false },
  });
  const connection = new ServerConnection(config, client, wire, log, gate, session, owners, plan.offered);
  connection.era = config.protocol === 'auto' ? options.era : undefined;
  connection.machine = machine.identity;
  installElicitation(client, transport, { server: config.name, log, gate }, owners);
  tapTaskProgress(transport, connection.taskProgress);
  client.onclose = () => {
    connection.transportEnded = true;
    connection.markDead('transport closed');
  };
  client.onerror = (error) => {
    if (isSessionExpired(error)) connection.markDead('session expired');
    else if (isTappedProgressNoise(error)) return;
    else if (isLateProbeAnswer(error))
      log({ server: config.name, kind: 'connecting', message: 'the server answered server/discover after the probe gave up; ignored' });
    // Protocol noise (a non-JSON line on stdout, an answer to an unknown id) is worth a log line.
    else log({ server: config.name, kind: 'error', message: describeFailure(error).slice(0, 300) });
  };
  // 2026-07-28 delivers these on the subscriptions/listen stream (listen-stream.ts), 2025 unsolicited.
  client.setNotificationHandler('notifications/tools/list_changed', () => connection.catalog.invalidate('tools'));
  client.setNotificationHandler('notifications/prompts/list_changed', () => connection.catalog.invalidate('prompts'));
  client.setNotificationHandler('notifications/resources/list_changed', () => connection.catalog.invalidate('resources'));
  client.setNotificationHandler('notifications/message', (notification) => {
    const data = notification.params.data;
    log({
      server: config.name,
      kind: 'server-log',
      message: `[${notification.params.level}] ${typeof data === 'string' ? data : JSON.stringify(data)}`,
    });
  });

  log({ server: config.name, kind: 'connecting', message: `connecting to ${config.display}` });
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), budgetMs);
  timer.unref();
  // The v2 client's era probe does not end on the connect signal: closing the transport ends it (and initialize).
  const forget = options.signal
    ? onAbort(options.signal, () => {
        ac.abort();
        void connection.close('cancelled while connecting');
      })
    : undefined;
  let signIn = false;
  // Right after a sign-in, a server that still refuses gets no second one while connecting (no loop).
  if (session && options.signedIn) session.signInAllowed = false;
  // At most three attempts in one start: the probe, 2025 at once, the 2026-07-28 probe alone.
  const mayRetry = !prior && !options.probeModern;
  let retry: { readonly why: string; readonly with: Partial<OpenConnectionOptions> } | undefined;
  try {
    await traceHandshake(connection, transport, wire.kind === 'stdio', initializeSent, () =>
      client.connect(transport, { timeout: budgetMs, signal: ac.signal, ...(prior ? { prior } : {}) }),
    );
    if (session) session.signInAllowed = true;
  } catch (error) {
    const authError = options.signal?.aborted ? undefined : mapAuthError(error, config.name, redact, session?.authStarted);
    if (session?.pendingSignIn && !options.signedIn) {
      signIn = true;
    } else if (mayRetry && exitedOnProbe(connection, error)) {
      // A server whose SDK exits on any request before initialize: a legacy one. Start it again.
      retry = { why: 'exited on the server/discover probe', with: { skipProbe: true } };
      await connection.close(retry.why);
    } else if (mayRetry && probe?.gaveUp === true && !ac.signal.aborted && !initializeSent()) {
      retry = {
        why: `no answer to server/discover within ${plan.probeMs / 1000} s; speaking 2025-11-25 (pin "protocol" to skip the probe)`,
        with: { skipProbe: true },
      };
      await connection.close('no answer to the server/discover probe');
    } else if (authError) {
      await connection.close('authorization required');
      throw authError;
    } else {
      const timedOut = ac.signal.aborted && options.signal?.aborted !== true;
      // Describe the failure before closing: our own kill must not read as the cause.
      const failure = startError(
        connection,
        error,
        started,
        options.signal?.aborted === true,
        timedOut ? (initializeSent() ? 'initialize' : 'server/discover') : undefined,
        modernStatus,
      );
      await connection.close('initialization failed');
      // Under auto, initialize goes out only when the probe heard no 2026-07-28: a server that then
      // says it speaks only that was too slow for the probe (a cold start). Ask it again, alone.
      if (
        config.protocol !== 'auto' ||
        options.probeModern ||
        !initializeSent() ||
        !(failure instanceof ProtocolVersionError) ||
        !failure.serverVersions.includes('2026-07-28')
      )
        throw failure;
      retry = {
        why: 'the server speaks 2026-07-28 only, and did not answer server/discover in time: asking it again with the rest of the start budget',
        with: { skipProbe: false, probeModern: true },
      };
    }
  } finally {
    clearTimeout(timer);
    forget?.();
  }
  if (retry !== undefined) {
    log({ server: config.name, kind: 'connecting', message: retry.why });
    return openConnection({ ...options, ...retry.with, deadline });
  }
  if (signIn) {
    // The SDK sent the user to the authorization URL: wait for the redirect, exchange the code,
    // and connect again with the new token.
    try {
      log({ server: config.name, kind: 'connecting', message: 'waiting for sign-in' });
      await traceSignIn(connection.spanAttributes, redact, () => finishSignIn(connection, options.signal));
    } finally {
      // This connect alone waited for the sign-in: whatever happened, its listener goes.
      await session?.close();
      await connection.close('signed in; reconnecting');
    }
    return openConnection({ ...options, signedIn: true });
  }
  const era = client.getProtocolEra();
  // A verdict found here is kept for the key (one read from a probe that failed, too).
  if (config.protocol === 'auto' && (!prior || options.skipProbe === true) && options.era) {
    const discover = client.getDiscoverResult();
    options.era.memory.set(options.era.key, era === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' });
  }
  if (era === 'modern') listenForChanges(connection);
  else if (wire.kind === 'stdio') connection.direct = new DirectRequests(transport, (id) => owners.answered(id));
  if (wire.kind === 'stdio') {
    log({ server: config.name, kind: 'spawned', message: `spawned pid ${wire.diagnostics.pid ?? '?'}` });
  } else if (era !== 'modern') {
    // The SDK opens the GET stream without waiting for it; a first call sent before the server has
    // it loses every server request sent outside that call's POST (an elicitation, a sampling).
    if (!(await settlesWithin(eventStream, EVENT_STREAM_WAIT_MS, options.signal)) && !options.signal?.aborted) {
      log({
        server: config.name,
        kind: 'connecting',
        message: `no answer to the GET event stream in ${EVENT_STREAM_WAIT_MS} ms; going on without waiting for it`,
      });
    }
  }
  const version = client.getServerVersion();
  log({
    server: config.name,
    kind: 'initialized',
    message: `initialized ${version?.name ?? '?'} ${version?.version ?? ''} (protocol ${connection.protocolVersion ?? '?'}, ${era === 'modern' ? 'stateless, by server/discover' : 'session, by initialize'}${options.skipProbe ? ', no probe' : prior ? ', era known from an earlier connect' : ''}) in ${Date.now() - started} ms`,
  });
  return connection;
}

/** The gate of an entry opened on its own (sign-in): its own secrets. */
function ownGate(config: ResolvedServerConfig): () => ServerTextGate {
  const gate = new ServerTextGate(valueRedactorOfSecrets(config.secrets), masksOf(config.secrets));
  return () => gate;
}

/** The SDK's probe ended because a stdio server's process exited (or closed stdout) while probed. */
function exitedOnProbe(connection: ServerConnection, error: unknown): boolean {
  const stdio = connection.stdio;
  // Our own kill (host close, an abort) is no answer to the probe.
  if (!stdio || connection.closedByOwner || !(error instanceof SdkError) || error.code !== SdkErrorCode.EraNegotiationFailed) return false;
  return stdio.exit !== undefined || stdio.failure?.kind === 'stdout-closed';
}

function stdioWire(transport: MachineStdioTransport): Wire {
  return { kind: 'stdio', transport, diagnostics: transport.diagnostics() };
}
