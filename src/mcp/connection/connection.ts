import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { createRedactor, type ResolvedServerConfig } from '../../config/index.js';
import { BerryError, CallTimeoutError, CancelledError, ServerStartError, TransportClosedError, isBerryError } from '../../common/errors.js';
import {
  MachineStdioTransport,
  closeHttpTransport,
  createHttpTransport,
  HttpStatusError,
} from '../../transport/index.js';
import {
  confineSpawnSpec,
  type Machine,
} from '../../machine/index.js';
import { settlesWithin } from '../../common/index.js';
import { VERSION } from '../../common/version.js';
import { authRequiredError, mapAuthError, type OAuthSession } from '../../auth/index.js';
import { abortPromise, onAbort } from '../../common/abort.js';
import { RequestSignal } from './request-signal.js';
import { createSession, type ConnectionAuthOptions } from './oauth-session.js';
import type { ProgressEvent } from '../contract.js';
import { ELICITATION_CAPABILITIES, installElicitation } from '../operations/elicitation.js';
import type { ElicitationHandler } from '../handlers.js';
import { RequestOwners } from './request-owners.js';
import type { LogSink } from '../log.js';
import { authRequired, describeFailure, describeHttpFailure, isSessionExpired, isStreamLost, mapSdkError } from './failures.js';
import { ServerCatalog } from '../catalog/server-catalog.js';
import { closedDetail, tooLargeError } from './stdio-failure.js';

const CLIENT_INFO = { name: 'berry-mcp', version: VERSION };
/** Past the entry's (progress-reset) timeout, a call still ends at this multiple of it. */
const HARD_DEADLINE_FACTOR = 10;
/** How long a new HTTP connection waits for its GET event stream before it is used anyway. */
const EVENT_STREAM_WAIT_MS = 2000;

export interface OpenConnectionOptions {
  readonly machine: Machine;
  readonly config: ResolvedServerConfig;
  readonly log: LogSink;
  readonly signal?: AbortSignal;
  /** Longest message a stdio server may send (one line of its stdout). */
  readonly maxMessageBytes?: number;
  /** Secrets to redact from this server's output: all servers' of the config (they share the environment). @default config.secrets */
  readonly secrets?: readonly string[];
  readonly auth?: ConnectionAuthOptions;
  /** Set on the reconnect after a sign-in: a second sign-in in one open is refused (no loops). */
  readonly signedIn?: boolean;
  /** Answers the server's `elicitation/create`; without it every elicitation is declined. */
  readonly onElicitation?: ElicitationHandler | undefined;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** The entry this call is for, named in its errors and progress (twins share a connection). @default config.name */
  readonly server?: string;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Answers the elicitations this call causes, in place of the connection's `onElicitation`. */
  readonly onElicitation?: ElicitationHandler | undefined;
}

/** One initialized MCP session with one server. */
export class ServerConnection {
  readonly config: ResolvedServerConfig;
  readonly client: Client;
  readonly redact: (text: string) => string;
  /** Called once when the connection can no longer be used (closed, crashed, session expired). */
  onDead: (() => void) | undefined;
  readonly #transport: MachineStdioTransport | StreamableHTTPClientTransport;
  readonly #log: LogSink;
  readonly #session: OAuthSession | undefined;
  #dead = false;
  /** The transport itself ended (process gone, stdout closed, or closed by us). */
  #transportEnded = false;
  #closing: Promise<void> | undefined;
  /** Tools, prompts and resources, cached until the server's list_changed notifications. */
  readonly catalog: ServerCatalog = new ServerCatalog(this);
  /** Whose elicitation handler answers a server request (the caller of the request it came with). */
  readonly owners: RequestOwners;

  private constructor(
    config: ResolvedServerConfig,
    client: Client,
    transport: MachineStdioTransport | StreamableHTTPClientTransport,
    log: LogSink,
    redact: (text: string) => string,
    session: OAuthSession | undefined,
    owners: RequestOwners,
  ) {
    this.owners = owners;
    this.config = config;
    this.client = client;
    this.#transport = transport;
    this.#log = log;
    this.redact = redact;
    this.#session = session;
  }

  static async open(options: OpenConnectionOptions): Promise<ServerConnection> {
    const { config, machine } = options;
    const session = createSession(machine, config, options.auth);
    const redactConfig = createRedactor(options.secrets ?? config.secrets);
    const redact = session ? (text: string): string => session.redact(redactConfig(text)) : redactConfig;
    const log: LogSink = (event) => options.log({ ...event, message: redact(event.message) });
    const started = Date.now();
    let eventStreamSettled: () => void = () => {};
    const eventStream = new Promise<void>((resolve) => (eventStreamSettled = resolve));
    const owners = new RequestOwners(options.onElicitation);
    const transport =
      config.kind === 'stdio'
        ? new MachineStdioTransport({
            machine,
            spec: await confineSpawnSpec(machine, config.name, { command: config.command, args: config.args, env: config.env, cwd: config.cwd }, config.sandbox, options.signal),
            onStderr: (text) => log({ server: config.name, kind: 'stderr', message: text }),
            ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes }),
          })
        : createHttpTransport({
            machine,
            url: config.url,
            headers: config.headers,
            onEventStream: () => eventStreamSettled(),
            onServerRequest: (id, related) => owners.relate(id, related),
            ...(session ? { authProvider: session, wrapFetch: (fetch) => session.wrapFetch(fetch) } : {}),
          });
    const client = new Client(CLIENT_INFO, { capabilities: ELICITATION_CAPABILITIES });
    const connection = new ServerConnection(config, client, transport, log, redact, session, owners);
    installElicitation(client, transport, config.name, owners, log);
    client.onclose = () => {
      connection.#transportEnded = true;
      connection.#markDead('transport closed');
    };
    client.onerror = (error) => {
      if (isSessionExpired(error)) connection.#markDead('session expired');
      // Protocol noise (a non-JSON line on stdout, an answer to an unknown id) is worth a log line.
      else log({ server: config.name, kind: 'error', message: describeFailure(error).slice(0, 300) });
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => connection.catalog.invalidate('tools'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => connection.catalog.invalidate('prompts'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => connection.catalog.invalidate('resources'));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const data = notification.params.data;
      log({
        server: config.name,
        kind: 'server-log',
        message: `[${notification.params.level}] ${typeof data === 'string' ? data : JSON.stringify(data)}`,
      });
    });

    log({ server: config.name, kind: 'connecting', message: `connecting to ${config.display}` });
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), config.initTimeoutMs);
    timer.unref();
    const forget = options.signal ? onAbort(options.signal, () => ac.abort()) : undefined;
    let signIn = false;
    // Right after a sign-in, a server that still refuses gets no second one while connecting (no loop).
    if (session && options.signedIn) session.signInAllowed = false;
    try {
      await client.connect(transport, { timeout: config.initTimeoutMs, signal: ac.signal });
      if (session) session.signInAllowed = true;
    } catch (error) {
      const authError = options.signal?.aborted ? undefined : mapAuthError(error, config.name, redact, session?.authStarted);
      if (session?.pendingSignIn && !options.signedIn) {
        signIn = true;
      } else if (authError) {
        await connection.close('authorization required');
        throw authError;
      } else {
      const timedOut = ac.signal.aborted && options.signal?.aborted !== true;
      // Describe the failure before closing: our own kill must not read as the cause.
      const startError = connection.#startError(error, started, options.signal?.aborted === true, timedOut);
      await connection.close('initialization failed');
      throw startError;
      }
    } finally {
      clearTimeout(timer);
      forget?.();
    }
    if (signIn) {
      // The SDK sent the user to the authorization URL: wait for the redirect, exchange the code,
      // and connect again with the new token.
      try {
        log({ server: config.name, kind: 'connecting', message: 'waiting for sign-in' });
        await connection.#finishSignIn(options.signal);
      } finally {
        // This connect alone waited for the sign-in: whatever happened, its listener goes.
        await session?.close();
        await connection.close('signed in; reconnecting');
      }
      return ServerConnection.open({ ...options, signedIn: true });
    }
    if (transport instanceof MachineStdioTransport) {
      log({ server: config.name, kind: 'spawned', message: `spawned pid ${transport.pid ?? '?'}` });
    } else {
      // The SDK opens the GET stream without waiting for it; a first call sent before the server has
      // it loses every server request sent outside that call's POST (an elicitation, a sampling).
      if (!(await settlesWithin(eventStream, EVENT_STREAM_WAIT_MS, options.signal)) && !options.signal?.aborted) {
        log({ server: config.name, kind: 'connecting', message: `no answer to the GET event stream in ${EVENT_STREAM_WAIT_MS} ms; going on without waiting for it` });
      }
    }
    const version = client.getServerVersion();
    log({
      server: config.name,
      kind: 'initialized',
      message: `initialized ${version?.name ?? '?'} ${version?.version ?? ''} (protocol ${connection.protocolVersion ?? '?'}) in ${Date.now() - started} ms`,
    });
    return connection;
  }

  async #finishSignIn(signal: AbortSignal | undefined): Promise<void> {
    const session = this.#session;
    if (!session || this.#transport instanceof MachineStdioTransport) throw authRequiredError(this.config.name);
    const transport = this.#transport;
    // Shared with other requests that met the same sign-in: this caller's abort ends only its wait.
    const completing = session.completeSignIn((code) => transport.finishAuth(code));
    try {
      await (signal ? Promise.race([completing, abortPromise(signal, () => new CancelledError('The sign-in was cancelled.'))]) : completing);
    } catch (error) {
      throw mapAuthError(error, this.config.name, this.redact) ?? this.#mapError(error, 'sign-in', signal);
    }
  }

  // A request that met a sign-in (expired session, step-up to more scopes) continues after it, once.
  async #withSignIn<T>(run: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (!this.#session?.pendingSignIn) throw error;
      await this.#finishSignIn(signal);
      try {
        return await run();
      } finally {
        // A second sign-in asked for by the retry (the same step-up again) is not waited for.
        if (this.#session.pendingSignIn && !this.#session.signInAwaited) await this.#session.close();
      }
    }
  }

  get dead(): boolean {
    return this.#dead;
  }

  get protocolVersion(): string | undefined {
    return this.#transport.protocolVersion;
  }

  /** The server's process id on its machine (stdio only). */
  get pid(): number | undefined {
    return this.#transport instanceof MachineStdioTransport ? this.#transport.pid : undefined;
  }

  /** The whole tool catalog, following tools/list cursors; cached until tools/list_changed. */
  async listTools(signal?: AbortSignal, server?: string): Promise<Tool[]> {
    return (await this.catalog.list('tools', signal, server)).items;
  }

  /** Sends one request with the entry's timeout; failures become typed errors naming `server` (dead transports evict). */
  async send<T>(operation: string, run: (options: { timeout: number; signal?: AbortSignal }) => Promise<T>, signal?: AbortSignal, server = this.config.name): Promise<T> {
    // The SDK never removes the listener it adds to a request's signal: a long-lived signal (a
    // listing's, a run's) gets a RequestSignal of its own per request, behind one shared listener.
    const request = signal ? new RequestSignal() : undefined;
    const forget = signal && request ? onAbort(signal, () => request.abort(signal.reason)) : undefined;
    if (signal?.aborted) request?.abort(signal.reason);
    try {
      return await this.#withSignIn(() => run({ timeout: this.config.timeoutMs, ...(request ? { signal: request.signal } : {}) }), signal);
    } catch (error) {
      throw this.#mapError(error, operation, signal, server);
    } finally {
      forget?.();
    }
  }

  async callTool(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const timeoutMs = this.config.timeoutMs;
    const server = options.server ?? this.config.name;
    const ac = new RequestSignal();
    const cancel = (): void =>
      ac.abort(new CancelledError(`Call of "${tool}" on server "${server}" was cancelled.`));
    if (options.signal?.aborted) cancel();
    const forget = options.signal ? onAbort(options.signal, cancel) : undefined;
    // Without progress the SDK's own timeout ends the call first; progress resets that timeout, and
    // the SDK's maxTotalTimeout is only checked when progress arrives: so from the first progress
    // on, our own hard deadline (counted from the start) bounds the call.
    const started = Date.now();
    const hardDeadlineMs = timeoutMs * HARD_DEADLINE_FACTOR;
    let deadline: NodeJS.Timeout | undefined;
    const armDeadline = (): void => {
      deadline = setTimeout(() => {
        ac.abort(
          new CallTimeoutError(
            `Call of "${tool}" on server "${server}" passed its hard deadline of ${hardDeadlineMs / 1000} s (${HARD_DEADLINE_FACTOR}× the ${timeoutMs / 1000} s timeout) and was cancelled.`,
            hardDeadlineMs,
          ),
        );
      }, Math.max(0, started + hardDeadlineMs - Date.now()));
      deadline.unref();
    };
    const onProgress = options.onProgress;
    try {
      const result = await this.#withSignIn(() => this.owners.as(options.onElicitation, () => this.client.request(
        { method: 'tools/call', params: { name: tool, arguments: args } },
        CallToolResultSchema,
        {
          signal: ac.signal,
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: (p) => {
            if (deadline === undefined) armDeadline();
            onProgress?.({
              server,
              tool,
              progress: p.progress,
              ...(p.total === undefined ? {} : { total: p.total }),
              ...(p.message === undefined ? {} : { message: p.message }),
            });
          },
        },
      )), ac.signal);
      return result as CallToolResult;
    } catch (error) {
      throw this.#mapError(error, `tools/call "${tool}"`, ac.signal, server);
    } finally {
      clearTimeout(deadline);
      forget?.();
    }
  }

  #mapError(error: unknown, operation: string, signal: AbortSignal | undefined, server = this.config.name): BerryError {
    if (signal?.aborted && isBerryError(signal.reason)) return signal.reason;
    if (signal?.aborted) return new CancelledError(`${operation} on server "${server}" was cancelled.`);
    const tooLarge = tooLargeError(this.#transport, operation, server);
    if (tooLarge) return tooLarge;
    const authError = this.#session ? mapAuthError(error, server, this.redact) : undefined;
    if (authError) return authError;
    const mapped = mapSdkError(error, {
      server,
      operation,
      timeoutMs: this.config.timeoutMs,
      redact: this.redact,
      closedDetail: () => closedDetail(this.#transport, this.redact),
      transportClosed: () => this.#transportEnded,
    });
    // A timeout behind an endless unterminated line is a stuck transport, not a slow tool. Half the
    // timeout: the line may have begun just after this request was sent.
    if (mapped.code === 'MCP_TIMEOUT' && this.#transport instanceof MachineStdioTransport && this.#transport.abandonIfStuck(this.config.timeoutMs / 2)) {
      return new TransportClosedError(`${mapped.message.replace(/ Raise "timeout".*$/, '')} Meanwhile ${closedDetail(this.#transport, this.redact)}. The next operation reconnects.`, '', { cause: error });
    }
    // A dead session or transport is replaced on the next operation; the call itself is not replayed.
    // Anything else (a JSON-RPC error, a malformed result) failed this request only; a lost response
    // stream is that call's loss: the session itself is still there.
    if (mapped.code === 'MCP_SESSION_EXPIRED' || (mapped.code === 'MCP_TRANSPORT_CLOSED' && !isStreamLost(error))) {
      this.#markDead(mapped.code === 'MCP_SESSION_EXPIRED' ? 'session expired' : 'transport failed');
    }
    return mapped;
  }

  #startError(error: unknown, started: number, aborted: boolean, timedOut: boolean): BerryError {
    const { config } = this;
    const durationMs = Date.now() - started;
    if (aborted) return new CancelledError(`Connecting to server "${config.name}" was cancelled.`);
    if (error instanceof HttpStatusError && error.status === 401) return authRequired(config.name, error, this.redact);
    const stdio = this.#transport instanceof MachineStdioTransport ? this.#transport : undefined;
    const exit = stdio?.exit;
    const stderrTail = stdio ? this.redact(stdio.stderrTail) : '';
    let reason: string;
    const tooLarge = tooLargeError(this.#transport, 'initialize', config.name);
    if (tooLarge) {
      reason = tooLarge.message;
    } else if (stdio?.failure?.kind === 'stdout-closed' || stdio?.failure?.kind === 'stdin-closed') {
      reason = `the server closed its ${stdio.failure.kind === 'stdout-closed' ? 'stdout' : 'stdin'} during initialization (it was stopped)`;
    } else if (timedOut) {
      reason = `no answer to initialize within ${config.initTimeoutMs / 1000} s`;
    } else if (exit?.error) {
      const code = (exit.error as NodeJS.ErrnoException).code;
      reason =
        code === 'ENOENT'
          ? `command not found (or cwd "${this.redact(config.kind === 'stdio' ? config.cwd ?? '' : '')}" missing): check "command" and PATH on the target machine`
          : `could not start: ${this.redact(exit.error.message)}`;
      // A remote shell reports the failure with an exit code too (127: not found, 126: no cwd).
      if (exit.code !== undefined) reason += ` (exit code ${exit.code})`;
    } else if (exit?.code !== undefined) {
      reason = `the server exited with code ${exit.code} during initialization`;
    } else if (exit?.signal !== undefined) {
      reason = `the server was killed by ${exit.signal} during initialization`;
    } else {
      reason = describeHttpFailure(error, this.redact) ?? this.redact(describeFailure(error));
    }
    return new ServerStartError(
      `Server "${config.name}" failed to start (${config.display}): ${reason}` +
        (stderrTail ? `\nstderr (last lines):\n${stderrTail}` : ''),
      {
        server: config.name,
        ...(config.kind === 'stdio' ? { command: config.display } : {}),
        ...(exit?.code === undefined ? {} : { exitCode: exit.code }),
        ...(exit?.signal === undefined ? {} : { signal: exit.signal }),
        stderrTail,
        durationMs,
      },
    );
  }

  #markDead(reason: string): void {
    if (this.#dead) return;
    this.#dead = true;
    if (!this.#closing) this.#log({ server: this.config.name, kind: 'closed', message: `connection lost: ${reason}` });
    this.onDead?.();
    // Reap the process group and pipes even when the server died on its own.
    void this.close(reason);
  }

  /** Graceful and idempotent: ends the session (HTTP) or the process group (stdio). */
  close(reason = 'closed'): Promise<void> {
    this.#closing ??= (async () => {
      this.#dead = true;
      const transport = this.#transport;
      if (transport instanceof MachineStdioTransport) {
        await transport.close();
      } else {
        await closeHttpTransport(transport);
      }
      // A sign-in in progress belongs to whoever waits for it (open or #withSignIn), which ends it.
      if (!this.#session?.pendingSignIn) await this.#session?.close();
      this.#log({ server: this.config.name, kind: 'closed', message: `closed (${reason})` });
    })();
    return this.#closing;
  }
}

