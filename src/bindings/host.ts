import { noRedaction, type LoadedConfig, type ResolvedServerConfig } from '../config/index.js';
import { BerryError } from '../common/errors.js';
// Single modules, not the remote face: the face also loads the MCP transports (and the SDK),
// which a host that never connects (a script that calls no tool, --help) should not pay for.
import { LocalMachine } from '../remote/machine/local-machine.js';
import { MAX_LINE_LIMIT } from '../remote/transport/stdio/line-reader.js';
import type { Machine } from '../remote/machine/index.js';
import type { ApproveCall } from './operations/approval/approval.js';
import { ArgumentChecker } from './operations/arguments/argument-check.js';
import { call as callOperation } from './operations/call-operation.js';
import { ObservedTypes } from './catalog/observed-types/observer.js';
import { CatalogStore } from './catalog/catalog-store.js';
import { describe as describeOperation } from './operations/describe-operation.js';
import { prompt as promptOperation } from './operations/prompts.js';
import { read as readOperation } from './operations/read.js';
import { search as searchOperation } from './operations/search/search.js';
// resources.js (see read.ts) and tasks.js (see call-operation.ts) load the SDK's schemas: imported
// when first used, after a connection has loaded the SDK anyway, so a script that calls no tool never loads it.
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
  SearchRequest,
  SearchResult,
} from './contract.js';
import type { ServerConnection } from './connection/connection.js';
// Sign-in code loads the SDK's OAuth client: it is imported by the operations that need it.
import { normalizeAuthOptions, type ConnectionAuthOptions } from './connection/start/auth-options.js';
import type { AuthorizeResult } from './operations/sign-in.js';
import { byteLimit, hostStore, safeSink, startBackoffOf, type McpHostOptions } from './host-options.js';
import { noLog, type LogSink } from './log.js';
import { ConnectionPool } from './pool/pool.js';
import { ConnectionOpener } from './pool/opener.js';
import type { StartBackoff } from './pool/start-backoff.js';
import { MachineRelease, operationFailure, throwIfCancelled } from './machine-release.js';
import type { OperationContext, Prepared } from './operations/context.js';
import { resolveEntry } from './operations/resolve-entry.js';
import type { CallOperationOptions, McpHost } from './host-contract.js';
import { authorize, logout } from './operations/authorize.js';
import { list } from './operations/list.js';
import { typings } from './operations/typings.js';
import { OperationConfig } from './operation-config.js';
import { gateOf, type ServerTextGate } from './server-text/gate.js';
import { DEFAULT_MAX_ARGUMENT_BYTES } from '../common/argument-limit.js';
import type { ScriptCheck, ScriptCheckOptions } from './check/check-script.js';
import { observe } from './telemetry/gauges.js';

export type { AuthorizeResult, CallOperationOptions, McpHost, McpHostOptions };

/** The MCP host (list, describe, call, read, prompt, search, typings, sign-in): rereads mcp.json on every operation and pools connections. */
export function createMcpHost(options: McpHostOptions = {}): McpHost {
  return new MachineHost(options);
}

/** The class behind createMcpHost; the berry-mcp host (src/host.ts) extends it with `run`. */
export class MachineHost implements McpHost {
  readonly machine: Machine;
  readonly cwd: string;
  readonly store: McpHost['store'];
  /** mcp.json as each operation reads it, and the pool keys of its entries. */
  readonly #config: OperationConfig;
  readonly #pool: ConnectionPool;
  readonly #ownsPool: boolean;
  readonly #log: LogSink;
  readonly #maxArgumentBytes: number;
  readonly #auth: ConnectionAuthOptions;
  readonly #approveCall: ApproveCall | undefined;
  readonly #store: CatalogStore | undefined;
  readonly #arguments: ArgumentChecker;
  /** Result types learned from calls of tools without an outputSchema (describe, typings). */
  readonly #observed: ObservedTypes;
  /** Servers that failed to start, not started again before their time (docs/reliability.md). */
  readonly #backoff: StartBackoff;
  /** Opens the pool's connections, remembering each key's era and start failures. */
  readonly #opener: ConnectionOpener;
  /** Catalog saves and background refreshes: close() lets them finish. */
  readonly #background = new Set<Promise<unknown>>();
  /** Operations running now; the machine's connection is released after a quiet idle period. */
  readonly #release: MachineRelease;
  /** What list and typings (operations/) use of this host. */
  readonly #context: OperationContext;
  #closed = false;
  /** Aborted by close(): ends connects still waiting (a sign-in waits up to signInTimeoutMs). */
  readonly #closing = new AbortController();

  constructor(options: McpHostOptions) {
    this.machine = options.machine ?? new LocalMachine();
    this.cwd = options.cwd ?? process.cwd();
    if (!this.cwd.startsWith('/')) {
      throw new TypeError(`cwd must be an absolute path on the machine, got ${JSON.stringify(this.cwd)}`);
    }
    this.#ownsPool = options.pool === undefined;
    this.#pool = options.pool ?? new ConnectionPool({ idleTimeoutMs: options.idleTimeoutMs ?? 300_000 });
    this.#config = new OperationConfig(this.machine, this.cwd, options.configPath, this.#pool);
    this.#release = new MachineRelease(this.machine, this.#pool);
    this.#log = options.onLog ? safeSink(options.onLog) : noLog;
    this.#maxArgumentBytes = byteLimit('maxArgumentBytes', options.maxArgumentBytes, MAX_LINE_LIMIT) ?? DEFAULT_MAX_ARGUMENT_BYTES;
    this.#auth = normalizeAuthOptions(options, (this.store = hostStore(this.machine, options)));
    this.#approveCall = options.approveCall;
    this.#store = options.savedCatalogs ? new CatalogStore(this.store) : undefined;
    this.#arguments = new ArgumentChecker(this.#log);
    this.#observed = new ObservedTypes(this.#store, this.#log);
    this.#backoff = startBackoffOf(options);
    observe('berry.connections', this.#pool, () => this.#pool.states());
    observe('berry.backoff.open', this.#backoff, () => [[{}, this.#closed ? 0 : this.#backoff.open()]]);
    this.#opener = new ConnectionOpener({
      machine: this.machine,
      log: this.#log,
      maxMessageBytes: byteLimit('maxMessageBytes', options.maxMessageBytes, MAX_LINE_LIMIT),
      gate: () => this.#config.gate(),
      auth: this.#auth,
      onElicitation: options.onElicitation,
      backoff: this.#backoff,
    });
    this.#context = {
      machine: this.machine,
      log: this.#log,
      pool: this.#pool,
      store: this.#store,
      observed: this.#observed,
      backoff: this.#backoff,
      operation: (signal, fn) => this.#release.run(signal, fn),
      prepare: (signal) => this.#prepare(signal),
      resolve: (prepared, server) => resolveEntry(prepared.loaded, server),
      use: (prepared, config, fn, signal, force = false) => {
        const gate = gateOf(prepared.loaded.servers);
        return this.#use(prepared, config, (connection) => fn(connection, gate), signal, force, gate);
      },
      // The recorded start failure of `config` while it backs off, unless a connect is open or under way.
      pendingFailure: (prepared, config) => this.#failureOf(this.#config.key(prepared.lifetime, config), config),
      keyOf: (prepared, config) => this.#config.key(prepared.lifetime, config),
      track: (work) => this.#track(work),
      withEntry: (server, fn, signal, force) => this.#withEntry(server, fn, signal, force),
      approveCall: this.#approveCall,
      arguments: this.#arguments,
      maxArgumentBytes: this.#maxArgumentBytes,
      captureArguments: options.otel?.captureArguments === true,
      auth: this.#auth,
      openSignal: (signal) => this.#openSignal(signal),
    };
  }

  #track(work: Promise<unknown>): void {
    const settled = work.catch(() => {});
    this.#background.add(settled);
    void settled.finally(() => this.#background.delete(settled));
  }

  readConfig(signal?: AbortSignal): Promise<LoadedConfig> {
    return this.#release.run(signal, async () => (await this.#prepare(signal)).loaded);
  }

  #prepare(signal: AbortSignal | undefined): Promise<Prepared> {
    if (this.#closed) return Promise.reject(new BerryError('MCP_HOST_CLOSED', 'The host was closed; create a new one.'));
    return this.#config.prepare(signal);
  }

  /**
   * Runs `fn` on the pooled connection for `config`. A server whose last start failed is not
   * started again within its backoff window (unless `force`): the recorded failure answers at once.
   * A connect already under way is joined, never failed from the record.
   */
  #use<T>(
    prepared: Prepared,
    config: ResolvedServerConfig,
    fn: (connection: ServerConnection) => Promise<T>,
    signal: AbortSignal | undefined,
    force: boolean,
    gate: ServerTextGate,
  ): Promise<T> {
    const key = this.#config.key(prepared.lifetime, config);
    const failed = force ? undefined : this.#failureOf(key, config);
    if (failed) return Promise.reject(failed);
    // Not async, and no wrapper when there is nothing to mask: each layer of async functions on
    // a call's way back is one more turn of the microtask queue.
    const mask = gate.value;
    const run = mask === noRedaction ? fn : async (connection: ServerConnection) => mask(await fn(connection), config.name);
    return this.#pool.use(
      key,
      prepared.scope,
      (connectSignal) => this.#opener.open(config, key, connectSignal),
      run,
      signal,
      `Connecting to server "${config.name}"`,
    );
  }

  #failureOf(key: string, config: ResolvedServerConfig): BerryError | undefined {
    return this.#pool.has(key) ? undefined : this.#backoff.pending(key, config.name);
  }

  #openSignal(signal: AbortSignal | undefined): AbortSignal {
    return signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal;
  }

  withServer<T>(server: string, fn: (connection: ServerConnection) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.#withEntry(server, fn, signal);
  }

  /**
   * Runs `fn` on the connection for `server`, with that server's entry as this operation read it:
   * answers take the name and filter from `entry`, never from the connection, which entries with
   * the same resolved config share and which may have opened before the file changed.
   */
  async #withEntry<T>(
    server: string,
    fn: (connection: ServerConnection, entry: ResolvedServerConfig, gate: ServerTextGate) => Promise<T>,
    signal: AbortSignal | undefined,
    force = false,
  ): Promise<T> {
    // #release.run, written out: every call comes this way.
    this.#release.enter(signal);
    let gate: ServerTextGate | undefined;
    try {
      const prepared = await this.#prepare(signal);
      const read = (gate = gateOf(prepared.loaded.servers));
      const entry = resolveEntry(prepared.loaded, server);
      return await this.#use(prepared, entry, (connection) => fn(connection, entry, read), signal, force, read);
    } catch (error) {
      throw operationFailure(signal, gate ? gate.error(error, server) : error);
    } finally {
      this.#release.leave();
    }
  }

  async list(request: ListRequest = {}, options: OperationOptions = {}): Promise<ListResult> {
    throwIfCancelled(options.signal);
    return list(this.#context, request, options);
  }

  typings(options: { readonly signal?: AbortSignal; readonly server?: string; readonly client?: object } = {}): Promise<string> {
    const { signal, ...request } = options;
    return typings(this.#context, request, signal ? { signal } : {});
  }

  async describe(request: DescribeRequest, options: OperationOptions = {}): Promise<DescribeResult> {
    throwIfCancelled(options.signal);
    return describeOperation(this.#context, request, options);
  }

  // Not async: the operation's promise is handed back as it is (an async layer is one more turn of
  // the microtask queue on every call's way back); what throws before it becomes a rejection.
  call(request: CallRequest, options: CallOperationOptions = {}): Promise<CallResult> {
    try {
      throwIfCancelled(options.signal);
      return callOperation(this.#context, request, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async read(request: ReadRequest, options: OperationOptions = {}): Promise<ReadResult> {
    return readOperation(this.#context, request, options);
  }

  async prompt(request: PromptRequest, options: OperationOptions = {}): Promise<PromptResult> {
    return promptOperation(this.#context, request, options);
  }

  async search(request: SearchRequest, options: OperationOptions = {}): Promise<SearchResult> {
    throwIfCancelled(options.signal);
    return searchOperation(this.#context, request, options);
  }

  /** The check before a run (check/): certain mistakes at `tools.*` calls, and warnings; loaded only for a script that names `tools`. */
  async checkScript(code: string, options: ScriptCheckOptions): Promise<ScriptCheck> {
    if (!/\btools\b/.test(code)) return { problems: [], warnings: [] };
    return (await import('./check/check-script.js')).checkScript(this.#context, code, options);
  }

  authorize(server: string, options: { readonly signal?: AbortSignal } = {}): Promise<AuthorizeResult> {
    return authorize(this.#context, { server }, options);
  }

  logout(server: string, options: { readonly signal?: AbortSignal } = {}): Promise<boolean> {
    return logout(this.#context, { server }, options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    this.#release.close();
    // Saves and background refreshes were started by operations that already answered.
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
    // Learned types are written while the servers stop (it never rejects); the machine closes after.
    const learned = this.#observed.close();
    if (this.#ownsPool) await this.#pool.close();
    await learned;
    await Promise.all([this.store.close(), this.machine.close()]);
  }
}
