import { loadConfig, secretsOfServers, valueRedactorOf, type LoadedConfig, type ResolvedServerConfig, type ServerSlot, type ToolFilter } from '../config/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { BerryError, CancelledError, isBerryError, type BerryErrorCode } from '../common/errors.js';
// Single modules, not the remote face: the face also loads the MCP transports (and the SDK),
// which a host that never connects (a script that calls no tool, --help) should not pay for.
import { LocalMachine } from '../machine/local-machine.js';
import { MAX_LINE_LIMIT } from '../transport/stdio/line-reader.js';
import type { Machine } from '../machine/index.js';
import type { ApproveCall } from './operations/approval.js';
import { ArgumentChecker } from './operations/argument-check.js';
import { callOn } from './operations/call-operation.js';
import { ObservedTypes } from './catalog/observed-types/observer.js';
import { CatalogStore } from './catalog/catalog-store.js';
import { describeServer, describeToolOf } from './operations/describe-operation.js';
import { getPrompt } from './operations/prompts.js';
// resources.js (and tasks.js, see call-operation.ts) load the SDK's schemas: imported when first
// used, after a connection has loaded the SDK anyway, so a script that calls no tool never loads it.
import { connectedStatus, failedStatus, sandboxNotes } from './catalog/server-status.js';
import { applyToolFilter } from './operations/tool-filter.js';
import type {
  CallRequest,
  CallResult,
  DescribeRequest,
  DescribeResult,
  ListRequest,
  ListResult,
  OperationOptions,
  PromptRequest,
  PromptResult,
  ReadRequest,
  ReadResult,
  ServerStatus,
} from './contract.js';
import type { ServerConnection } from './connection/connection.js';
// Sign-in code loads the SDK's OAuth client: it is imported by the operations that need it.
import { normalizeAuthOptions, type ConnectionAuthOptions } from './connection/auth-options.js';
import type { AuthorizeResult } from './operations/sign-in.js';
import type { ElicitationHandler } from './handlers.js';
import { byteLimit, safeSink, startBackoffOf, type McpHostOptions } from './host-options.js';
import { noLog, type LogSink } from './log.js';
import { ConnectionPool } from './pool/pool.js';
import type { StartBackoff } from './pool/start-backoff.js';
import { generateTypings, type TypingsServerInput } from './typings/index.js';
import {
  DEFAULT_MAX_ARGUMENT_BYTES,
  checkArgumentsSize,
  validateCallRequest,
  validateDescribeRequest,
  validateListRequest,
  validatePromptRequest,
  validateReadRequest,
} from './operations/validate-request.js';

export type { AuthorizeResult, McpHostOptions };

/** One call's options: a call's own approval hook (a served run's) takes the host's place. */
export interface CallOperationOptions extends OperationOptions {
  readonly approveCall?: ApproveCall;
}

export interface McpHost {
  readonly machine: Machine;
  readonly cwd: string;
  list(request?: ListRequest, options?: OperationOptions): Promise<ListResult>;
  describe(request: DescribeRequest, options?: OperationOptions): Promise<DescribeResult>;
  call(request: CallRequest, options?: CallOperationOptions): Promise<CallResult>;
  /** `resources/read` of one resource (a template filled in by the caller). */
  read(request: ReadRequest, options?: OperationOptions): Promise<ReadResult>;
  /** `prompts/get`: a prompt's messages, filled with `arguments`. */
  prompt(request: PromptRequest, options?: OperationOptions): Promise<PromptResult>;
  /** The config as read now, for tools that need the server list (typings). */
  readConfig(signal?: AbortSignal): Promise<LoadedConfig>;
  /** A .d.ts typing `tools.mcp_call`/`mcp_describe` per configured server (or one) and tool; broken servers become warnings. */
  typings(options?: { readonly signal?: AbortSignal; readonly server?: string }): Promise<string>;
  /**
   * Signs in to an HTTP server now (even if tokens are stored), through `onAuthorizationUrl`, and
   * keeps the tokens for every later connection.
   */
  authorize(server: string, options?: { readonly signal?: AbortSignal }): Promise<AuthorizeResult>;
  /** Removes the stored tokens and registered client of an HTTP server; true when there were any. */
  logout(server: string, options?: { readonly signal?: AbortSignal }): Promise<boolean>;
  /** Runs `fn` on a pooled connection to `server`. */
  withServer<T>(server: string, fn: (connection: ServerConnection) => Promise<T>, signal?: AbortSignal): Promise<T>;
  close(): Promise<void>;
}

/** How long after the MCP connections' idle close the machine's own connection is released. */
const RELEASE_MARGIN_MS = 1000;

/** A server's status with its full tool list: what list summarizes and typings compiles. */
type Catalog =
  | {
      readonly status: 'connected';
      readonly transport: 'stdio' | 'http';
      /** The whole list, before the entry's filter. */
      readonly tools: Tool[];
      readonly filter: ToolFilter | undefined;
    }
  | { readonly status: 'disabled'; readonly transport: 'stdio' | 'http' }
  | { readonly status: 'error'; readonly error: { readonly code: BerryErrorCode; readonly message: string } }
  | { readonly status: 'auth_required'; readonly transport: 'http'; readonly error: { readonly code: BerryErrorCode; readonly message: string } };

interface Prepared {
  readonly loaded: LoadedConfig;
  readonly lifetime: string;
  readonly scope: string;
}

/** The host of the three operations: rereads mcp.json on every operation and pools connections. */
export function createMcpHost(options: McpHostOptions = {}): McpHost {
  return new Host(options);
}

class Host implements McpHost {
  readonly machine: Machine;
  readonly cwd: string;
  readonly #configPath: string | undefined;
  readonly #pool: ConnectionPool;
  readonly #ownsPool: boolean;
  readonly #log: LogSink;
  readonly #idleTimeoutMs: number;
  readonly #maxMessageBytes: number | undefined;
  readonly #maxArgumentBytes: number;
  readonly #auth: ConnectionAuthOptions;
  readonly #onElicitation: ElicitationHandler | undefined;
  readonly #approveCall: ApproveCall | undefined;
  readonly #store: CatalogStore | undefined;
  readonly #arguments: ArgumentChecker;
  /** Result types learned from calls of tools without an outputSchema (describe, typings). */
  readonly #observed: ObservedTypes;
  /** Servers that failed to start, not started again before their time (docs/reliability.md). */
  readonly #backoff: StartBackoff;
  /** Catalog saves and background refreshes: close() lets them finish. */
  readonly #background = new Set<Promise<unknown>>();
  /** Operations running now; the machine's connection is released after a quiet idle period. */
  #active = 0;
  #releaseTimer: NodeJS.Timeout | undefined;
  #lastActive = 0;
  #lastPrepared: Prepared | undefined;
  #closed = false;
  /** Aborted by close(): ends connects still waiting (a sign-in waits up to signInTimeoutMs). */
  readonly #closing = new AbortController();

  constructor(options: McpHostOptions) {
    this.machine = options.machine ?? new LocalMachine();
    this.cwd = options.cwd ?? process.cwd();
    if (!this.cwd.startsWith('/')) {
      throw new TypeError(`cwd must be an absolute path on the machine, got ${JSON.stringify(this.cwd)}`);
    }
    this.#configPath = options.configPath;
    this.#ownsPool = options.pool === undefined;
    this.#pool = options.pool ?? new ConnectionPool({ idleTimeoutMs: options.idleTimeoutMs ?? 300_000 });
    this.#idleTimeoutMs = this.#pool.idleTimeoutMs;
    this.#log = options.onLog ? safeSink(options.onLog) : noLog;
    this.#maxMessageBytes = byteLimit('maxMessageBytes', options.maxMessageBytes, MAX_LINE_LIMIT);
    this.#maxArgumentBytes = byteLimit('maxArgumentBytes', options.maxArgumentBytes, MAX_LINE_LIMIT) ?? DEFAULT_MAX_ARGUMENT_BYTES;
    this.#auth = normalizeAuthOptions(options);
    this.#onElicitation = options.onElicitation;
    this.#approveCall = options.approveCall;
    const saved = options.savedCatalogs;
    this.#store = saved ? new CatalogStore(this.machine, typeof saved === 'object' ? saved.dir : undefined) : undefined;
    this.#arguments = new ArgumentChecker(this.#log);
    this.#observed = new ObservedTypes(this.#store, this.#log);
    this.#backoff = startBackoffOf(options);
  }

  #track(work: Promise<unknown>): void {
    const settled = work.catch(() => {});
    this.#background.add(settled);
    void settled.finally(() => this.#background.delete(settled));
  }

  /**
   * Wraps one operation so the machine's connection (SSH) is released once nothing runs on it.
   * Whatever an aborted operation fails with (a DOMException, the caller's reason), the caller
   * sees MCP_CANCELLED.
   */
  async #operation<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    throwIfCancelled(signal);
    this.#active++;
    try {
      return await fn();
    } catch (error) {
      if (signal?.aborted && !(isBerryError(error) && error.code === 'MCP_CANCELLED')) {
        throw new CancelledError('The operation was cancelled.', { cause: error });
      }
      throw error;
    } finally {
      this.#lastActive = Date.now();
      if (--this.#active === 0 && !this.#releaseTimer) this.#armRelease(this.#idleTimeoutMs + RELEASE_MARGIN_MS);
    }
  }

  // Idle MCP connections close after idleTimeoutMs; the SSH connection under them follows once the
  // last of them is gone. One timer per quiet period, re-armed for what is left.
  #armRelease(delayMs: number): void {
    if (this.#closed) return;
    this.#releaseTimer = setTimeout(() => {
      this.#releaseTimer = undefined;
      if (this.#active > 0 || this.#closed) return;
      const left = this.#lastActive + this.#idleTimeoutMs + RELEASE_MARGIN_MS - Date.now();
      if (left > 0) this.#armRelease(left);
      else if (this.#pool.hasOpen(`${this.machine.identity}\n`)) this.#armRelease(RELEASE_MARGIN_MS);
      else void this.machine.release().catch(() => {});
    }, delayMs);
    this.#releaseTimer.unref();
  }

  readConfig(signal?: AbortSignal): Promise<LoadedConfig> {
    return this.#operation(signal, async () => (await this.#prepare(signal)).loaded);
  }

  async #prepare(signal: AbortSignal | undefined): Promise<Prepared> {
    if (this.#closed) throw new BerryError('MCP_HOST_CLOSED', 'The host was closed; create a new one.');
    const lifetime = await this.machine.lifetime(signal);
    const loaded = await loadConfig({
      machine: this.machine,
      cwd: this.cwd,
      ...(this.#configPath === undefined ? {} : { configPath: this.#configPath }),
      ...(signal ? { signal } : {}),
    });
    // loadConfig hands back the same object while nothing changed: so does this.
    const last = this.#lastPrepared;
    if (last?.loaded === loaded && last.lifetime === lifetime) return last;
    const scope = `${this.machine.identity}\n${this.cwd}\n${loaded.path}`;
    const live = new Set<string>();
    for (const slot of loaded.servers) {
      if (slot.status === 'ok') live.add(this.#key(lifetime, slot.config));
    }
    this.#pool.sync(scope, live);
    this.#lastPrepared = { loaded, lifetime, scope };
    return this.#lastPrepared;
  }

  #key(lifetime: string, config: ResolvedServerConfig): string {
    return `${this.machine.identity}\n${lifetime}\n${this.cwd}\n${config.fingerprint}`;
  }

  /**
   * Runs `fn` on the pooled connection for `config`. A server whose last start failed is not
   * started again within its backoff window (unless `force`): the recorded failure answers at once.
   * A connect already under way is joined, never failed from the record.
   */
  async #use<T>(
    prepared: Prepared,
    config: ResolvedServerConfig,
    fn: (connection: ServerConnection) => Promise<T>,
    signal: AbortSignal | undefined,
    force = false,
  ): Promise<T> {
    const key = this.#key(prepared.lifetime, config);
    const failed = force ? undefined : this.#pendingFailure(prepared, config);
    if (failed) throw failed;
    return this.#pool.use(
      key,
      prepared.scope,
      async (connectSignal) => {
        try {
          // Loaded on the first connection: the SDK is most of berry-mcp's start-up time.
          const connection = await (await import('./connection/connection.js')).ServerConnection.open({
            machine: this.machine,
            config,
            log: this.#log,
            ...(this.#maxMessageBytes === undefined ? {} : { maxMessageBytes: this.#maxMessageBytes }),
            secrets: secretsOfServers(prepared.loaded.servers),
            auth: this.#auth,
            onElicitation: this.#onElicitation,
            signal: connectSignal,
          });
          this.#backoff.succeeded(key);
          return connection;
        } catch (error) {
          // A connect abandoned by its callers (or by close) says nothing about the server.
          if (!connectSignal.aborted) this.#backoff.failed(key, error);
          throw error;
        }
      },
      async (connection) => valueRedactorOf(prepared.loaded.servers)(await fn(connection), config.name),
      signal,
      `Connecting to server "${config.name}"`,
    );
  }

  /** The recorded start failure of `config` while it backs off, unless a connect is open or under way. */
  #pendingFailure(prepared: Prepared, config: ResolvedServerConfig): BerryError | undefined {
    const key = this.#key(prepared.lifetime, config);
    return this.#pool.has(key) ? undefined : this.#backoff.pending(key, config.name);
  }

  #openSignal(signal: AbortSignal | undefined): AbortSignal {
    return signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal;
  }

  #resolve(prepared: Prepared, server: string): ResolvedServerConfig {
    const { loaded } = prepared;
    const slot = loaded.servers.find((s) => s.name === server);
    if (!slot) {
      const names = loaded.servers.map((s) => s.name);
      throw new BerryError(
        'MCP_UNKNOWN_SERVER',
        names.length > 0
          ? `Unknown server "${server}". Configured: ${names.join(', ')} (from ${loaded.path}).`
          : `Unknown server "${server}": no servers are configured (${loaded.path}${loaded.exists ? ' has none' : ' does not exist'}).`,
      );
    }
    if (slot.status === 'error') throw slot.error;
    if (slot.status === 'disabled') {
      throw new BerryError(
        'MCP_SERVER_DISABLED',
        `Server "${server}" is disabled ("enabled": false in ${loaded.path}). Enable it there to use it.`,
      );
    }
    return slot.config;
  }

  withServer<T>(server: string, fn: (connection: ServerConnection) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.#withEntry(server, fn, signal);
  }

  /**
   * Runs `fn` on the connection for `server`, with that server's entry as this operation read it:
   * answers take the name and filter from `entry`, never from the connection, which entries with
   * the same resolved config share and which may have opened before the file changed.
   */
  #withEntry<T>(
    server: string,
    fn: (connection: ServerConnection, entry: ResolvedServerConfig) => Promise<T>,
    signal: AbortSignal | undefined,
    force = false,
  ): Promise<T> {
    return this.#operation(signal, async () => {
      const prepared = await this.#prepare(signal);
      const entry = this.#resolve(prepared, server);
      return this.#use(prepared, entry, (connection) => fn(connection, entry), signal, force);
    });
  }

  async list(request: ListRequest = {}, options: OperationOptions = {}): Promise<ListResult> {
    throwIfCancelled(options.signal);
    const { server, refresh } = validateListRequest(request);
    return this.#operation(options.signal, () => this.#list(server, refresh === true, options.signal));
  }

  async #list(server: string | undefined, refresh: boolean, signal: AbortSignal | undefined): Promise<ListResult> {
    const prepared = await this.#prepare(signal);
    if (server !== undefined && !prepared.loaded.servers.some((s) => s.name === server)) {
      this.#resolve(prepared, server);
    }
    const slots = prepared.loaded.servers.filter((s) => server === undefined || s.name === server);
    const servers = await Promise.all(slots.map((slot) => this.#status(prepared, slot, refresh, signal)));
    return { configPath: prepared.loaded.path, servers };
  }

  /** One server's tool catalog, or why it has none: never throws for a broken server. */
  async #catalog(prepared: Prepared, slot: ServerSlot, signal: AbortSignal | undefined, force = false): Promise<Catalog> {
    if (slot.status === 'disabled') return { status: 'disabled', transport: slot.transport };
    if (slot.status === 'error') return { status: 'error', error: { code: slot.error.code, message: slot.error.message } };
    try {
      const listing = await this.#use(prepared, slot.config, (c) => c.catalog.list('tools', signal, slot.name), signal, force);
      const all = listing.items;
      if (this.#store) {
        const name = slot.name;
        // A cache that cannot be written costs only speed: say so on the log, nothing else.
        this.#track(
          this.#store.save(slot.config.fingerprint, all, listing.ttlMs).catch((error: unknown) =>
            this.#log({ server: name, kind: 'error', message: `saved catalog not written: ${error instanceof Error ? error.message : String(error)}` }),
          ),
        );
      }
      return { status: 'connected', transport: slot.config.kind, tools: all, filter: slot.config.toolFilter };
    } catch (error) {
      if (signal?.aborted) throw error;
      const berry = isBerryError(error) ? error : new BerryError('MCP_CONNECT_FAILED', String(error));
      if (berry.code === 'MCP_AUTH_REQUIRED' && slot.config.kind === 'http') {
        return { status: 'auth_required', transport: 'http', error: { code: berry.code, message: berry.message } };
      }
      return { status: 'error', error: { code: berry.code, message: berry.message } };
    }
  }

  /**
   * A saved catalog for a server with no live connection: fresh or not, it answers now; a stale
   * one is refreshed in the background (which saves it again).
   */
  async #savedStatus(prepared: Prepared, slot: ServerSlot, signal: AbortSignal | undefined): Promise<ServerStatus | undefined> {
    if (!this.#store || slot.status !== 'ok') return undefined;
    if (this.#pool.hasOpen(this.#key(prepared.lifetime, slot.config))) return undefined;
    const saved = await this.#store.load(slot.config.fingerprint, signal);
    if (!saved) return undefined;
    const ageMs = Math.max(0, Date.now() - saved.savedAt);
    if (ageMs > saved.ttlMs) this.#track(this.#operation(undefined, () => this.#catalog(prepared, slot, undefined)));
    return connectedStatus(slot.name, slot.config.kind, valueRedactorOf(prepared.loaded.servers)(saved.tools, slot.name), slot.config.toolFilter, { ageMs }, await sandboxNotes(this.machine, slot, signal));
  }

  async #status(prepared: Prepared, slot: ServerSlot, refresh: boolean, signal: AbortSignal | undefined): Promise<ServerStatus> {
    // A start failure backing off answers at once, with the tools of a saved catalog if there is one.
    let dial = refresh;
    if (!refresh && slot.status === 'ok') {
      const failed = this.#pendingFailure(prepared, slot.config);
      if (failed) return failedStatus(slot.name, failed, slot.config.toolFilter, valueRedactorOf(prepared.loaded.servers)(await this.#store?.load(slot.config.fingerprint, signal), slot.name));
      // Its window is over: the one attempt it is due, not a saved catalog that says all is well.
      dial = this.#backoff.recorded(this.#key(prepared.lifetime, slot.config));
    }
    const saved = dial ? undefined : await this.#savedStatus(prepared, slot, signal);
    if (saved) return saved;
    const catalog = await this.#catalog(prepared, slot, signal, refresh);
    if (catalog.status !== 'connected') return { name: slot.name, ...catalog };
    return connectedStatus(slot.name, catalog.transport, catalog.tools, catalog.filter, undefined, await sandboxNotes(this.machine, slot, signal));
  }

  typings(options: { readonly signal?: AbortSignal; readonly server?: string } = {}): Promise<string> {
    const { signal, server } = options;
    return this.#operation(signal, async () => {
      const prepared = await this.#prepare(signal);
      if (server !== undefined) this.#resolve(prepared, server);
      const inputs = await Promise.all(
        prepared.loaded.servers.filter((slot) => server === undefined || slot.name === server).map(async (slot): Promise<TypingsServerInput> => {
          const catalog = await this.#catalog(prepared, slot, signal);
          if (catalog.status === 'connected') {
            // Prompts type mcp_prompt; a server whose prompt list fails is still typed for its tools.
            const prompts =
              slot.status === 'ok'
                ? await this.#use(prepared, slot.config, (c) => c.catalog.list('prompts', signal, slot.name), signal).then(
                    (listing) => listing.items,
                    () => [],
                  )
                : [];
            const observed = slot.status === 'ok' ? await this.#observed.view(slot.config.fingerprint, slot.name, catalog.tools, signal) : undefined;
            return { server: slot.name, tools: applyToolFilter(catalog.tools, catalog.filter), prompts, observed };
          }
          if (catalog.status === 'disabled') return { server: slot.name, error: 'disabled ("enabled": false)' };
          if (catalog.status === 'auth_required') return { server: slot.name, error: catalog.error.message };
          return { server: slot.name, error: `${catalog.error.code}: ${catalog.error.message}` };
        }),
      );
      return generateTypings(inputs);
    });
  }

  async describe(request: DescribeRequest, options: OperationOptions = {}): Promise<DescribeResult> {
    throwIfCancelled(options.signal);
    const { server, tool, schemas } = validateDescribeRequest(request);
    const { signal } = options;
    // Describing a server is an explicit look at it: a recorded start failure does not answer for it.
    return this.#withEntry(
      server,
      async (connection, entry) => {
        const observed = await this.#observed.viewOf(connection, entry.name, signal);
        return tool === undefined ? describeServer(connection, entry, signal, observed) : describeToolOf(connection, entry, tool, schemas === true, signal, observed);
      },
      signal,
      true,
    );
  }

  async call(request: CallRequest, options: CallOperationOptions = {}): Promise<CallResult> {
    throwIfCancelled(options.signal);
    const { server, tool, arguments: args } = validateCallRequest(request);
    checkArgumentsSize('mcp_call', args, this.#maxArgumentBytes);
    const context = { approve: options.approveCall ?? this.#approveCall, checker: this.#arguments, observed: this.#observed };
    return this.#withEntry(server, (connection, entry) => callOn(connection, entry, tool, args, options, context), options.signal);
  }

  async read(request: ReadRequest, options: OperationOptions = {}): Promise<ReadResult> {
    const valid = validateReadRequest(request);
    return this.#withEntry(valid.server, async (connection) => (await import('./operations/resources.js')).readResource(connection, valid, options), options.signal);
  }

  async prompt(request: PromptRequest, options: OperationOptions = {}): Promise<PromptResult> {
    const valid = validatePromptRequest(request);
    return this.#withEntry(valid.server, (connection) => getPrompt(connection, valid, options), options.signal);
  }

  authorize(server: string, options: { readonly signal?: AbortSignal } = {}): Promise<AuthorizeResult> {
    return this.#operation(options.signal, async () => {
      const prepared = await this.#prepare(options.signal);
      const { httpConfigFor, signIn } = await import('./operations/sign-in.js');
      const config = httpConfigFor(this.#resolve(prepared, server), prepared.loaded.path);
      return signIn({ machine: this.machine, config, log: this.#log, auth: this.#auth, signal: this.#openSignal(options.signal) });
    });
  }

  logout(server: string, options: { readonly signal?: AbortSignal } = {}): Promise<boolean> {
    return this.#operation(options.signal, async () => {
      const prepared = await this.#prepare(options.signal);
      const { httpConfigFor, signOut } = await import('./operations/sign-in.js');
      const config = httpConfigFor(this.#resolve(prepared, server), prepared.loaded.path);
      return signOut(this.machine, config, this.#auth, options.signal);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    if (this.#releaseTimer) clearTimeout(this.#releaseTimer);
    // Saves and background refreshes were started by operations that already answered.
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
    // Learned types are written while the servers stop (it never rejects); the machine closes after.
    const learned = this.#observed.close();
    if (this.#ownsPool) await this.#pool.close();
    await learned;
    await this.machine.close();
  }
}
/** A signal aborted before the operation started: MCP_CANCELLED, never the signal's own reason. */
function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('The operation was cancelled before it started.');
}
