import type { CallToolResult, Client, Tool } from '@modelcontextprotocol/client';
import type { ResolvedServerConfig } from '../../config/index.js';
import { closeHttpTransport, type StdioDiagnostics } from '../../remote/transport/index.js';
import type { OAuthSession } from '../../auth/index.js';
import type { LogSink } from '../log.js';
import { ServerCatalog } from '../catalog/server-catalog.js';
import type { RequestOwners } from './request-owners.js';
import { callTool, send, type CallOptions, type RequestTarget } from './requests.js';
import type { Wire } from './wire.js';
import type { ProgressTaps } from './task-progress.js';
import type { EraSlot } from './start/era.js';
import type { DirectRequests } from './direct-requests.js';
import type { ServerTextGate } from '../server-text/gate.js';
import type { Attributes } from '@opentelemetry/api';
import { machineName, serverAttributes } from '../telemetry/attributes.js';

export type { CallOptions };

/**
 * One initialized MCP session with one server: its state and its close. It is opened by open.ts
 * (openConnection) and sends through requests.ts.
 */
export class ServerConnection implements RequestTarget {
  readonly config: ResolvedServerConfig;
  readonly client: Client;
  /** What this server says passes here on its way out: masked, bounded, checked (server-text/gate.ts). */
  readonly gate: ServerTextGate;
  /** Server text in a log line or an error (a stderr tail, a server's error message), masked. */
  readonly redact: (text: string) => string;
  /** Called once when the connection can no longer be used (closed, crashed, session expired). */
  onDead: (() => void) | undefined;
  readonly wire: Wire;
  readonly session: OAuthSession | undefined;
  readonly log: LogSink;
  /** The revisions this connection offered: both, or the one its entry pins. */
  readonly offered: readonly string[];
  /** Where its key's era verdict is kept (forgotten when the server refuses the revision). */
  era: EraSlot | undefined;
  #dead = false;
  /** The transport itself ended (process gone, stdout closed, or closed by us). */
  transportEnded = false;
  #closing: Promise<void> | undefined;
  /** close() was called while the connection still lived: its owner ended it (host close, eviction), the server did not. */
  #closedByOwner = false;
  /** Tools, prompts and resources, cached until the server's list_changed notifications. */
  readonly catalog: ServerCatalog = new ServerCatalog(this);
  /** Progress of task calls, by their own progress token (task-progress.ts). */
  readonly taskProgress: ProgressTaps = new Map();
  /** Whose elicitation handler answers a server request (the caller of the request it came with). */
  readonly owners: RequestOwners;
  /** tools/call beside the SDK's funnel: set once connected in the 2025 era over stdio (direct-requests.ts). */
  direct: DirectRequests | undefined;
  /** The identity of the machine the server runs on (or is reached from): `local`, `ssh:user@host:22`. */
  machine = 'local';
  #spanAttributes: Attributes | undefined;

  constructor(
    config: ResolvedServerConfig,
    client: Client,
    wire: Wire,
    log: LogSink,
    gate: ServerTextGate,
    session: OAuthSession | undefined,
    owners: RequestOwners,
    offered: readonly string[],
  ) {
    this.offered = offered;
    this.owners = owners;
    this.config = config;
    this.client = client;
    this.wire = wire;
    this.log = log;
    this.gate = gate;
    this.redact = (text) => gate.piece(text);
    this.session = session;
  }

  get dead(): boolean {
    return this.#dead;
  }

  get closedByOwner(): boolean {
    return this.#closedByOwner;
  }

  /** The negotiated revision, e.g. `2026-07-28` (found by server/discover) or `2025-11-25` (initialize). */
  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  /** What every span of this connection's requests carries (telemetry/attributes.ts). */
  get spanAttributes(): Attributes {
    this.#spanAttributes ??= serverAttributes(this.config, machineName(this.machine), this.redact);
    return this.#spanAttributes;
  }

  /** The MCP session (2025 era over HTTP), if the server gave one. */
  get sessionId(): string | undefined {
    return this.wire.kind === 'http' ? this.wire.transport.sessionId : undefined;
  }

  get mirrorsHeaders(): boolean {
    return this.wire.kind === 'http' && this.client.getProtocolEra() === 'modern';
  }

  warn(message: string): void {
    this.log({ server: this.config.name, kind: 'error', message });
  }

  toolNamed(name: string): Tool | undefined {
    return this.catalog.toolNamed(name);
  }

  /** What a stdio transport knows about its process (exit, stderr tail); undefined over HTTP. */
  get stdio(): StdioDiagnostics | undefined {
    return this.wire.kind === 'stdio' ? this.wire.diagnostics : undefined;
  }

  /** The server's process id on its machine (stdio only). */
  get pid(): number | undefined {
    return this.stdio?.pid;
  }

  /** The whole tool catalog, following tools/list cursors; cached until tools/list_changed. */
  async listTools(signal?: AbortSignal, server?: string): Promise<Tool[]> {
    return (await this.catalog.list('tools', signal, server)).items;
  }

  /** Sends one request with the entry's timeout; failures become typed errors naming `server` (dead transports evict). */
  send<T>(
    operation: string,
    run: (options: { timeout: number; signal?: AbortSignal }) => Promise<T>,
    signal?: AbortSignal,
    server = this.config.name,
  ): Promise<T> {
    return send(this, operation, run, signal, server);
  }

  callTool(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    return callTool(this, tool, args, options);
  }

  /** The server refused the revision it negotiated: the next connect of the key probes again. */
  forgetEra(): void {
    this.era?.memory.forget(this.era.key);
  }

  /** The connection can no longer be used: the pool forgets it and its process or session ends. */
  markDead(reason: string): void {
    if (this.#dead) return;
    this.#dead = true;
    // A server that died or forgot us may come back speaking another revision: ask it again.
    this.forgetEra();
    if (!this.#closing) this.log({ server: this.config.name, kind: 'closed', message: `connection lost: ${reason}` });
    this.onDead?.();
    // Reap the process group and pipes even when the server died on its own.
    void this.close(reason);
  }

  /** Graceful and idempotent: ends the session (HTTP) or the process group (stdio). */
  close(reason = 'closed'): Promise<void> {
    if (this.#closing === undefined && !this.#dead) this.#closedByOwner = true;
    this.#closing ??= (async () => {
      this.#dead = true;
      const wire = this.wire;
      if (wire.kind === 'stdio') {
        await wire.transport.close();
      } else {
        await closeHttpTransport(wire.transport);
      }
      // A sign-in in progress belongs to whoever waits for it (open or withSignIn), which ends it.
      if (!this.session?.pendingSignIn) await this.session?.close();
      this.log({ server: this.config.name, kind: 'closed', message: `closed (${reason})` });
    })();
    return this.#closing;
  }
}
