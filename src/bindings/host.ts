import { loadConfig, type LoadedConfig, type ResolvedServerConfig, type ServerSlot } from '../config/index.js';
import { BerryError, isBerryError } from '../errors.js';
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
import { ServerConnection } from './connection.js';
import { noLog, type LogSink } from './log.js';
import { ConnectionPool } from './pool.js';
import { summarize } from './summarize.js';
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
}

export interface McpHost {
  readonly machine: Machine;
  readonly cwd: string;
  list(request?: ListRequest, options?: OperationOptions): Promise<ListResult>;
  describe(request: DescribeRequest, options?: OperationOptions): Promise<DescribeResult>;
  call(request: CallRequest, options?: OperationOptions): Promise<CallResult>;
  /** The config as read now, for tools that need the server list (typings). */
  readConfig(signal?: AbortSignal): Promise<LoadedConfig>;
  /** Runs `fn` on a pooled connection to `server`. */
  withServer<T>(server: string, fn: (connection: ServerConnection) => Promise<T>, signal?: AbortSignal): Promise<T>;
  close(): Promise<void>;
}

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
  #closed = false;

  constructor(options: McpHostOptions) {
    this.machine = options.machine ?? new LocalMachine();
    this.cwd = options.cwd ?? process.cwd();
    if (!this.cwd.startsWith('/')) {
      throw new TypeError(`cwd must be an absolute path on the machine, got ${JSON.stringify(this.cwd)}`);
    }
    this.#configPath = options.configPath;
    this.#ownsPool = options.pool === undefined;
    this.#pool = options.pool ?? new ConnectionPool({ idleTimeoutMs: options.idleTimeoutMs ?? 300_000 });
    this.#log = options.onLog ?? noLog;
  }

  async readConfig(signal?: AbortSignal): Promise<LoadedConfig> {
    return (await this.#prepare(signal)).loaded;
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
    const scope = `${this.machine.identity}\n${this.cwd}\n${loaded.path}`;
    const live = new Set<string>();
    for (const slot of loaded.servers) {
      if (slot.status === 'ok') live.add(this.#key(lifetime, slot.config));
    }
    this.#pool.sync(scope, live);
    return { loaded, lifetime, scope };
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
          ...(signal ? { signal } : {}),
        }),
      fn,
    );
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

  async withServer<T>(
    server: string,
    fn: (connection: ServerConnection) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const prepared = await this.#prepare(signal);
    return this.#use(prepared, this.#resolve(prepared, server), fn, signal);
  }

  async list(request: ListRequest = {}, options: OperationOptions = {}): Promise<ListResult> {
    const { server } = validateListRequest(request);
    const prepared = await this.#prepare(options.signal);
    if (server !== undefined && !prepared.loaded.servers.some((s) => s.name === server)) {
      this.#resolve(prepared, server);
    }
    const slots = prepared.loaded.servers.filter((s) => server === undefined || s.name === server);
    const servers = await Promise.all(slots.map((slot) => this.#status(prepared, slot, options.signal)));
    return { configPath: prepared.loaded.path, servers };
  }

  async #status(prepared: Prepared, slot: ServerSlot, signal: AbortSignal | undefined): Promise<ServerStatus> {
    if (slot.status === 'disabled') return { name: slot.name, status: 'disabled', transport: slot.transport };
    if (slot.status === 'error') {
      return { name: slot.name, status: 'error', error: { code: slot.error.code, message: slot.error.message } };
    }
    try {
      const tools = await this.#use(prepared, slot.config, (c) => c.listTools(signal), signal);
      return {
        name: slot.name,
        status: 'connected',
        transport: slot.config.kind,
        tools: tools.map((tool) => ({ name: tool.name, description: summarize(tool.description) })),
      };
    } catch (error) {
      if (signal?.aborted) throw error;
      const berry = isBerryError(error) ? error : new BerryError('MCP_CONNECT_FAILED', String(error));
      return { name: slot.name, status: 'error', error: { code: berry.code, message: berry.message } };
    }
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

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.close();
    await this.machine.close();
  }
}

function describeTool(server: string, tool: import('@modelcontextprotocol/sdk/types.js').Tool): ToolDescription {
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
