import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ClientCapabilities,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { VERSION } from '../common/version.js';
import type { Host } from '../host.js';
import { createRunState } from '../runtime/index.js';
import { ConfigWatch } from './config-watch.js';
import type { DescriptionLimits } from './description/description.js';
import { ElicitationRouter, elicitationModes, type ElicitationTarget } from './elicitation.js';
import { ModernRun, ParkedRuns, type ParkedState } from './modern-run.js';
import { loneClient, RunQueue, type RunClient } from './queue.js';
import { observe } from '../bindings/telemetry/index.js';
import { defaultConcurrency, runExecutor, type RunExecutor } from './workers/executor.js';
import { inputError } from './result.js';
import { executeRun, progressOf, traceParentOf, type RunExecution } from './run-execution.js';
import { runTool } from './run-tool.js';
import { SERVE_OUTPUT_LIMIT_BYTES } from './output-budget.js';
import { validateRunArguments, type RunArguments } from './validate.js';
import { ModernStates, type OpenState } from './state/modern-states.js';
import { MemoryStateStore, type StateStore } from './state/state-store.js';
import { SharedStateStore } from './state/shared-state-store.js';

export interface RunServiceOptions {
  readonly host: Host;
  /** Runs executing at once; the rest wait, each client in its own queue, served in turn (each client's and holder's cap: serveHttp). @default 4 per worker (4 with none) */
  readonly maxConcurrency?: number;
  /** Runs one client may have waiting for a slot; one more is refused with SERVE_QUEUE_FULL. @default 8 */
  readonly maxQueuedRuns?: number;
  /** A run's wall-clock limit when the caller gives no timeoutSeconds, and the most it may ask for. @default 300 */
  readonly timeoutSeconds?: number;
  /** @default 128 */
  readonly memoryLimitMb?: number;
  /** Output budget of one run (text, images and logs together; the return value has the same). @default 32768 */
  readonly outputLimitBytes?: number;
  /** Put every tool's TypeScript signature in the `run` description (past 2,048 characters). @default false */
  readonly signatures?: boolean;
  /** Ask the run's client (elicitation) before each call to a tool that may write. @default false */
  readonly confirmWrites?: boolean;
  /** Check each script's `tools.*` calls before it runs (RunOptions.check). @default 'calls' */
  readonly check?: 'calls' | 'off';
  /** Where serving problems go (never script output). */
  readonly onWarning?: (message: string) => void;
  /** Worker processes that run the scripts (executor.ts); 0 runs them in serve's own process. @default cores - 1, at least 2 and at most 4; 1 on one core */
  readonly workers?: number;
  /** How long a 2026-07-28 run's state is kept after its last run (a 2025 session's lasts as long as the session). @default 1800 */
  readonly stateIdleSeconds?: number;
  /** Where 2026-07-28 states are kept. @default the host's store when it is shared (Redis), else a MemoryStateStore; either with stateIdleSeconds */
  readonly stateStore?: StateStore;
}

/** Who a 2026-07-28 server instance serves: the queue its runs wait in, and how a change of servers is announced. */
export interface ModernScope {
  /** The queue's client: the stdio connection, or every stateless HTTP request of one token holder. */
  readonly client: RunClient;
  /** Announces tools/list_changed (to subscriptions/listen streams); one function per serving, not per request. */
  readonly toolsChanged: () => void;
}

const INSTRUCTIONS =
  'berry-mcp runs JavaScript against many MCP servers at once: use the run tool, whose description lists the API and the servers. ' +
  'Prefer one script that calls several tools in parallel and returns only what you need over many separate calls.';

/** How long a 2025 client has to answer a forwarded elicitation. */
const ELICITATION_TIMEOUT_MS = 600_000;

/** Code mode as MCP: one host and one queue shared by every client, in both protocol eras. */
export class RunService {
  readonly host: Host;
  readonly queue: RunQueue;
  readonly limits: DescriptionLimits;
  readonly #execution: RunExecution;
  readonly #executor: RunExecutor;
  readonly #signatures: boolean;
  readonly #warn: (message: string) => void;
  readonly #sessions = new Set<Server>();
  readonly #parked: ParkedRuns;
  readonly #states: ModernStates;
  #modernWatch: ConfigWatch | undefined;
  readonly #modernChanged = new Set<() => void>();

  constructor(options: RunServiceOptions) {
    this.host = options.host;
    const timeoutSeconds = options.timeoutSeconds ?? 300;
    this.limits = {
      defaultTimeoutSeconds: timeoutSeconds,
      maxTimeoutSeconds: timeoutSeconds,
      memoryLimitMb: options.memoryLimitMb ?? 128,
      outputLimitBytes: options.outputLimitBytes ?? SERVE_OUTPUT_LIMIT_BYTES,
    };
    this.#warn = options.onWarning ?? (() => {});
    this.#signatures = options.signatures === true;
    this.#executor = runExecutor(options.workers, this.#warn);
    this.queue = new RunQueue(options.maxConcurrency ?? defaultConcurrency(this.#executor.workers), options.maxQueuedRuns ?? 8);
    observe('berry.serve.queue.depth', this.queue, () => [[{}, this.queue.queued]]);
    this.#execution = {
      host: this.host,
      queue: this.queue,
      limits: this.limits,
      confirmWrites: options.confirmWrites === true,
      check: options.check ?? 'calls',
      runOptions: this.#executor.runOptions,
    };
    // A question's state lives as long as its run may.
    this.#parked = new ParkedRuns(timeoutSeconds + 60);
    const idleMs = (options.stateIdleSeconds ?? 1800) * 1000;
    // A fleet's replicas continue each other's states: they live where the host keeps its records.
    const shared = this.host.store.kind === 'redis' ? new SharedStateStore(this.host.store, idleMs) : undefined;
    this.#states = new ModernStates(options.stateStore ?? shared ?? new MemoryStateStore({ idleMs }));
  }

  /** Serves one 2025-era client, alone, on `transport`; resolves once connected. Closing the transport aborts its runs. */
  async connect(transport: Parameters<Server['connect']>[0]): Promise<Server> {
    const server = this.legacyServer(loneClient(this.queue.limit));
    await server.connect(transport);
    return server;
  }

  /**
   * A server for one 2025-11-25 client session (an HTTP session, a stdio connection): its own
   * elicitation router, its own view of the servers' set (a change sends tools/list_changed). Its
   * runs are `client`'s in the queue.
   */
  legacyServer(client: RunClient): Server {
    const server = newServer({ tools: { listChanged: true } });
    // This client's elicitations: each of its runs answers downstream requests through it.
    const elicitation = new ElicitationRouter();
    // The session's store()/load() values: they go with the session (this closure).
    const state = createRunState();
    const watch = new ConfigWatch(this.host, () => {
      server.sendToolListChanged().catch((error: unknown) => this.#warn(`could not send tools/list_changed: ${String(error)}`));
    });
    server.setRequestHandler('ping', async () => {
      await watch.check();
      return {};
    });
    server.setRequestHandler('tools/list', async (_request, ctx) => ({
      tools: [await runTool(this.host, await watch.check(), this.limits, { signatures: this.#signatures, signal: ctx.mcpReq.signal })],
    }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const parsed = await this.#accept(request.params, watch);
      if (typeof parsed === 'string') return inputError(parsed);
      const target: ElicitationTarget = {
        modes: elicitationModes(server.getClientCapabilities()),
        ask: (params, signal) =>
          ctx.mcpReq.send({ method: 'elicitation/create', params: params as Record<string, unknown> }, { signal, timeout: ELICITATION_TIMEOUT_MS }),
      };
      const reporter = progressOf(() => ctx);
      try {
        const parent = traceParentOf(request.params._meta, ctx);
        return await executeRun(this.#execution, client, parsed, target, elicitation, ctx.mcpReq.signal, reporter, { state, parent });
      } finally {
        reporter.close();
      }
    });
    server.onerror = (error) => this.#warn(`client connection: ${error.message}`);
    server.onclose = () => this.#sessions.delete(server);
    this.#sessions.add(server);
    return server;
  }

  /**
   * A server for 2026-07-28 traffic: one HTTP request, or one stdio connection. It holds no client
   * state: a run's questions park in this process and come back as `input_required` results.
   */
  modernServer(scope: ModernScope): Server {
    const server = newServer(
      // Empty prompt and resource lists, so a 2026 client's cacheable list requests get an answer (with cache hints) rather than -32601.
      { tools: { listChanged: true }, prompts: {}, resources: {} },
      this.#parked.codec,
    );
    const watch = this.#modernConfigWatch(scope.toolsChanged);
    server.setRequestHandler('tools/list', async (_request, ctx) => ({
      tools: [await runTool(this.host, await watch.check(), this.limits, { signatures: this.#signatures, signal: ctx.mcpReq.signal, state: true })],
    }));
    server.setRequestHandler('prompts/list', async () => ({ prompts: [] }));
    server.setRequestHandler('resources/list', async () => ({ resources: [] }));
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const state = ctx.mcpReq.requestState<ParkedState>();
      let run: ModernRun | undefined;
      if (state !== undefined) {
        toolNamed(request.params.name);
        run = this.#parked.find(state, request.params.arguments, scope.client);
        if (!run) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            'This run is no longer waiting for input in this serve process (it ended, or the retry changed its arguments): run it again.',
          );
        }
        // One leg at a time: a replayed state must not hold a stream per copy while the run executes.
        if (run.leg !== undefined) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidRequest,
            "Another request is already waiting for this run (one request at a time carries a run's answers): wait for its answer, or close it to cancel the run.",
          );
        }
        run.answer(ctx.mcpReq.inputResponses);
      } else {
        const parsed = await this.#accept(request.params, watch, true);
        if (typeof parsed === 'string') return inputError(parsed);
        const open = await this.#states.open(parsed.state, scope.client.holder.name);
        if ('content' in open) return open;
        run = this.#startModern(scope.client, parsed, request.params, ctx, open);
      }
      const answer = await run.serve(ctx);
      if ('result' in answer) {
        this.#parked.settle(run, true);
        return answer.result;
      }
      return inputRequired({ inputRequests: answer.inputRequests, requestState: await this.#parked.codec.mint({ run: run.id, args: run.args }, ctx) });
    });
    server.onerror = (error) => this.#warn(`client request: ${error.message}`);
    return server;
  }

  /** True while `client` has a run executing or waiting (an idle session may be evicted). */
  busy(client: RunClient): boolean {
    return this.queue.busy(client);
  }

  /** Closes every 2025 session and aborts every 2026 run (those waiting for an answer too), then the run workers. The host is the caller's to close. */
  async close(): Promise<void> {
    this.#parked.abortAll();
    this.#states.store.close();
    await Promise.all([...this.#sessions].map((s) => s.close().catch(() => {})));
    await this.#executor.close();
  }

  /** The one watch of the 2026 mode (there is no session to keep one per client in); it tells every scope's announcer. */
  #modernConfigWatch(toolsChanged: () => void): ConfigWatch {
    this.#modernChanged.add(toolsChanged);
    this.#modernWatch ??= new ConfigWatch(this.host, () => {
      for (const announce of this.#modernChanged) announce();
    });
    return this.#modernWatch;
  }

  /** A `run` call's arguments, checked; the config is reread first (a change is announced). */
  async #accept(params: { name: string; arguments?: unknown }, watch: ConfigWatch, withState = false): Promise<RunArguments | string> {
    toolNamed(params.name);
    await watch.check();
    return validateRunArguments(params.arguments, this.limits.maxTimeoutSeconds, withState);
  }

  #startModern(client: RunClient, parsed: RunArguments, params: { arguments?: unknown; _meta?: unknown }, ctx: ServerContext, open: OpenState): ModernRun {
    const run = new ModernRun(params.arguments, client);
    // The capabilities this request declared in its _meta: a 2026 client declares them per request.
    const modes = elicitationModes(
      (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined,
    );
    const target: ElicitationTarget = {
      modes,
      ask: (params, signal) => run.ask(params, signal),
    };
    const reporter = progressOf(() => run.leg);
    this.#parked.add(run);
    const owner = client.holder.name;
    const parent = traceParentOf(params._meta, ctx);
    void executeRun(this.#execution, client, parsed, target, new ElicitationRouter(), run.controller.signal, reporter, { state: open.state, parent })
      // Kept whether the run failed or not: what it stored before failing is there for the next one.
      .then((result) => this.#states.keep(open, owner, result).catch(() => result))
      .then((result) => {
        // What waits goes out on the leg in flight before its result.
        reporter.close();
        run.finish(result);
        if (run.leg === undefined) this.#parked.settle(run, false);
      });
    return run;
  }
}

function newServer(capabilities: ServerCapabilities, codec?: ParkedRuns['codec']): Server {
  return new Server(
    { name: 'berry-mcp', version: VERSION },
    {
      capabilities,
      instructions: INSTRUCTIONS,
      // The description is computed from the servers' live state, and it names this machine's servers: never cached, never shared.
      cacheHints: { 'tools/list': { ttlMs: 0, cacheScope: 'private' } },
      ...(codec ? { requestState: { verify: (state: string, ctx: ServerContext) => codec.verify(state, ctx) } } : {}),
    },
  );
}

/** Refuses a call of any tool but `run` (a JSON-RPC error: the request itself is wrong). */
function toolNamed(name: string): void {
  if (name !== 'run') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}": this server has one tool, "run".`);
}
