import { loadConfig, type LoadedConfig, type ResolvedServerConfig, type ServerSlot } from '../config/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { BerryError, isBerryError, type BerryErrorCode } from '../errors.js';
import { LocalMachine, type Machine } from '../remote/index.js';
import type {
  CallRequest,
  CallResult,
  DescribeRequest,
  DescribeResult,
  ListRequest,
  ListResult,
  OperationOptions,
  ServerStatus,
  ToolDescription,
} from './contract.js';
import type { AuthorizationUrlHandler } from '../auth/index.js';
import { ServerConnection } from './connection.js';
import { normalizeAuthOptions, type ConnectionAuthOptions } from './oauth-session.js';
import { httpConfigFor, signIn, signOut, type AuthorizeResult } from './sign-in.js';
import type { ElicitationHandler } from './handlers.js';
import { noLog, type LogSink } from './log.js';
import { ConnectionPool } from './pool.js';
import { summarize } from './summarize.js';
import { generateTypings, type TypingsServerInput } from './typings/index.js';
import { validateCallRequest, validateDescribeRequest, validateListRequest } from './validate-request.js';

export interface McpHostOptions {
  /** Where config, `${VAR}` values, stdio servers and HTTP requests live. @default new LocalMachine() */
  readonly machine?: Machine;
  /** Working directory on the machine. @default process.cwd() */
  readonly cwd?: string;
  /** Config file; relative paths resolve against `cwd`, `~` on the machine. @default '~/.config/berry/mcp.json' */
  readonly configPath?: string;
  /** Close a connection after this long with nothing in flight. @default 300000 */
  readonly idleTimeoutMs?: number;
  /** Share connections with other hosts (still keyed by machine, lifetime, cwd and config). */
  readonly pool?: ConnectionPool;
  /** Connection lifecycle and server stderr, secrets redacted. */
  readonly onLog?: LogSink;
  /** Answers servers' `elicitation/create` requests; without it every elicitation is declined. */
  readonly onElicitation?: ElicitationHandler;
  /**
   * Gets the user (or a test) to an OAuth authorization URL. With it, an operation that meets a
   * server needing sign-in runs the flow and continues once the redirect arrives (at most
   * `signInTimeoutMs`); berry-mcp waits for the redirect, not for this promise. Without it, such a
   * server fails with MCP_AUTH_REQUIRED. See docs/auth.md.
   */
  readonly onAuthorizationUrl?: AuthorizationUrlHandler;
  /** Token directory on the machine. @default '$XDG_CONFIG_HOME/berry/oauth' else '~/.config/berry/oauth' */
  readonly tokenDir?: string;
  /** How long a sign-in waits for the authorization server's redirect. @default 300000 */
  readonly signInTimeoutMs?: number;
}


export type { AuthorizeResult };

export interface McpHost {
  readonly machine: Machine;
  readonly cwd: string;
  list(request?: ListRequest, options?: OperationOptions): Promise<ListResult>;
  describe(request: DescribeRequest, options?: OperationOptions): Promise<DescribeResult>;
  call(request: CallRequest, options?: OperationOptions): Promise<CallResult>;
  /** The config as read now, for tools that need the server list (typings). */
  readConfig(signal?: AbortSignal): Promise<LoadedConfig>;
  /** A .d.ts typing `tools.mcp_call`/`mcp_describe` per configured server and tool; broken servers become warnings. */
  typings(options?: { readonly signal?: AbortSignal }): Promise<string>;
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
  | { readonly status: 'connected'; readonly transport: 'stdio' | 'http'; readonly tools: Tool[] }
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
  readonly #auth: ConnectionAuthOptions;
  readonly #onElicitation: ElicitationHandler | undefined;
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
    this.#log = options.onLog ?? noLog;
    this.#auth = normalizeAuthOptions(options);
    this.#onElicitation = options.onElicitation;
  }

  /** Wraps one operation so the machine's connection (SSH) is released once nothing runs on it. */
  async #operation<T>(fn: () => Promise<T>): Promise<T> {
    this.#active++;
    try {
      return await fn();
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
    return this.#operation(async () => (await this.#prepare(signal)).loaded);
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

  #use<T>(
    prepared: Prepared,
    config: ResolvedServerConfig,
    fn: (connection: ServerConnection) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    return this.#pool.use(
      this.#key(prepared.lifetime, config),
      prepared.scope,
      () =>
        ServerConnection.open({
          machine: this.machine,
          config,
          log: this.#log,
          auth: this.#auth,
          onElicitation: this.#onElicitation,
          signal: this.#openSignal(signal),
        }),
      fn,
    );
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
    return this.#operation(async () => {
      const prepared = await this.#prepare(signal);
      return this.#use(prepared, this.#resolve(prepared, server), fn, signal);
    });
  }

  async list(request: ListRequest = {}, options: OperationOptions = {}): Promise<ListResult> {
    const { server } = validateListRequest(request);
    return this.#operation(() => this.#list(server, options.signal));
  }

  async #list(server: string | undefined, signal: AbortSignal | undefined): Promise<ListResult> {
    const prepared = await this.#prepare(signal);
    if (server !== undefined && !prepared.loaded.servers.some((s) => s.name === server)) {
      this.#resolve(prepared, server);
    }
    const slots = prepared.loaded.servers.filter((s) => server === undefined || s.name === server);
    const servers = await Promise.all(slots.map((slot) => this.#status(prepared, slot, signal)));
    return { configPath: prepared.loaded.path, servers };
  }

  /** One server's tool catalog, or why it has none: never throws for a broken server. */
  async #catalog(prepared: Prepared, slot: ServerSlot, signal: AbortSignal | undefined): Promise<Catalog> {
    if (slot.status === 'disabled') return { status: 'disabled', transport: slot.transport };
    if (slot.status === 'error') return { status: 'error', error: { code: slot.error.code, message: slot.error.message } };
    try {
      const tools = await this.#use(prepared, slot.config, (c) => c.listTools(signal), signal);
      return { status: 'connected', transport: slot.config.kind, tools };
    } catch (error) {
      if (signal?.aborted) throw error;
      const berry = isBerryError(error) ? error : new BerryError('MCP_CONNECT_FAILED', String(error));
      if (berry.code === 'MCP_AUTH_REQUIRED' && slot.config.kind === 'http') {
        return { status: 'auth_required', transport: 'http', error: { code: berry.code, message: berry.message } };
      }
      return { status: 'error', error: { code: berry.code, message: berry.message } };
    }
  }

  async #status(prepared: Prepared, slot: ServerSlot, signal: AbortSignal | undefined): Promise<ServerStatus> {
    const catalog = await this.#catalog(prepared, slot, signal);
    if (catalog.status !== 'connected') return { name: slot.name, ...catalog };
    return {
      name: slot.name,
      status: 'connected',
      transport: catalog.transport,
      tools: catalog.tools.map((tool) => ({ name: tool.name, description: summarize(tool.description) })),
    };
  }

  typings(options: { readonly signal?: AbortSignal } = {}): Promise<string> {
    const { signal } = options;
    return this.#operation(async () => {
      const prepared = await this.#prepare(signal);
      const inputs = await Promise.all(
        prepared.loaded.servers.map(async (slot): Promise<TypingsServerInput> => {
          const catalog = await this.#catalog(prepared, slot, signal);
          if (catalog.status === 'connected') return { server: slot.name, tools: catalog.tools };
          if (catalog.status === 'disabled') return { server: slot.name, error: 'disabled ("enabled": false)' };
          if (catalog.status === 'auth_required') return { server: slot.name, error: catalog.error.message };
          return { server: slot.name, error: `${catalog.error.code}: ${catalog.error.message}` };
        }),
      );
      return generateTypings(inputs);
    });
  }


  async describe(request: DescribeRequest, options: OperationOptions = {}): Promise<DescribeResult> {
    const { server, tool } = validateDescribeRequest(request);
    return this.withServer(
      server,
      async (connection) => {
        const tools = await connection.listTools(options.signal);
        if (tool === undefined) {
          const info = connection.client.getServerVersion();
          const instructions = connection.client.getInstructions();
          return {
            server,
            ...(info ? { serverInfo: { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) } } : {}),
            ...(connection.protocolVersion ? { protocolVersion: connection.protocolVersion } : {}),
            ...(instructions ? { instructions } : {}),
            tools: tools.map((t) => {
              const { server: _server, ...rest } = describeTool(server, t);
              return rest;
            }),
          };
        }
        const found = tools.find((t) => t.name === tool);
        if (!found) {
          const names = tools.map((t) => t.name);
          throw new BerryError(
            'MCP_UNKNOWN_TOOL',
            `Server "${server}" has no tool "${tool}". Its tools: ${names.length > 0 ? names.join(', ') : '(none)'}.`,
          );
        }
        return describeTool(server, found);
      },
      options.signal,
    );
  }

  async call(request: CallRequest, options: OperationOptions = {}): Promise<CallResult> {
    const { server, tool, arguments: args } = validateCallRequest(request);
    return this.withServer(server, (connection) => connection.callTool(tool, args, options), options.signal);
  }

  authorize(server: string, options: { readonly signal?: AbortSignal } = {}): Promise<AuthorizeResult> {
    return this.#operation(async () => {
      const prepared = await this.#prepare(options.signal);
      const config = httpConfigFor(this.#resolve(prepared, server), prepared.loaded.path);
      return signIn({ machine: this.machine, config, log: this.#log, auth: this.#auth, signal: this.#openSignal(options.signal) });
    });
  }

  logout(server: string, options: { readonly signal?: AbortSignal } = {}): Promise<boolean> {
    return this.#operation(async () => {
      const prepared = await this.#prepare(options.signal);
      const config = httpConfigFor(this.#resolve(prepared, server), prepared.loaded.path);
      return signOut(this.machine, config, this.#auth, options.signal);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    if (this.#releaseTimer) clearTimeout(this.#releaseTimer);
    if (this.#ownsPool) await this.#pool.close();
    await this.machine.close();
  }
}

function describeTool(server: string, tool: Tool): ToolDescription {
  return {
    server,
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}
