import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { VERSION } from '../common/version.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { isBerryError } from '../common/errors.js';
import type { Host } from '../host.js';
import type { LoadedConfig } from '../config/index.js';
import { approveThrough } from './confirm-writes.js';
import { clip, describeRun, serverSetKey, type DescriptionLimits } from './description.js';
import { ElicitationRouter, elicitationModes, type ElicitationTarget } from './elicitation.js';
import { SERVE_OUTPUT_LIMIT_BYTES } from './output-budget.js';
import { ProgressReporter } from './progress.js';
import { RunQueue } from './queue.js';
import { inputError, RUN_OUTPUT_SCHEMA, runResult } from './result.js';
import { validateRunArguments } from './validate.js';

export interface RunServiceOptions {
  readonly host: Host;
  /** Runs executing at once; the rest wait, each client in its own queue, served in turn. @default 4 */
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
  /** Where serving problems go (never script output). */
  readonly onWarning?: (message: string) => void;
}

const INSTRUCTIONS =
  'berry-mcp runs JavaScript against many MCP servers at once: use the run tool, whose description lists the API and the servers. ' +
  'Prefer one script that calls several tools in parallel and returns only what you need over many separate calls.';

/** Code mode as MCP: one host and one queue shared by every client session. */
export class RunService {
  readonly host: Host;
  readonly queue: RunQueue;
  readonly limits: DescriptionLimits;
  readonly #warn: (message: string) => void;
  readonly #confirmWrites: boolean;
  readonly #signatures: boolean;
  readonly #sessions = new Set<Server>();

  constructor(options: RunServiceOptions) {
    this.host = options.host;
    this.queue = new RunQueue(options.maxConcurrency ?? 4, options.maxQueuedRuns ?? 8);
    const timeoutSeconds = options.timeoutSeconds ?? 300;
    this.limits = {
      defaultTimeoutSeconds: timeoutSeconds,
      maxTimeoutSeconds: timeoutSeconds,
      memoryLimitMb: options.memoryLimitMb ?? 128,
      outputLimitBytes: options.outputLimitBytes ?? SERVE_OUTPUT_LIMIT_BYTES,
    };
    this.#warn = options.onWarning ?? (() => {});
    this.#confirmWrites = options.confirmWrites === true;
    this.#signatures = options.signatures === true;
  }

  /** Serves one client on `transport`; resolves once connected. Closing the transport aborts its runs. */
  async connect(transport: Transport): Promise<Server> {
    const server = new Server(
      { name: 'berry-mcp', version: VERSION },
      { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
    );
    // This client's elicitations: each of its runs answers downstream requests through it.
    const elicitation = new ElicitationRouter();
    // The servers' set last shown to (or checked for) this client: a change sends tools/list_changed.
    let shownKey: string | undefined;
    const check = async (): Promise<LoadedConfig | Error> => {
      const loaded = await this.host.readConfig().catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
      const key = loaded instanceof Error ? `error:${loaded.message}` : serverSetKey(loaded);
      if (shownKey !== undefined && key !== shownKey) {
        await server.sendToolListChanged().catch((error: unknown) => this.#warn(`could not send tools/list_changed: ${String(error)}`));
      }
      shownKey = key;
      return loaded;
    };

    server.setRequestHandler(PingRequestSchema, async () => {
      await check();
      return {};
    });
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      const loaded = await check();
      return { tools: [await this.#runTool(loaded, extra.signal)] };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      if (request.params.name !== 'run') {
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}": this server has one tool, "run".`);
      }
      await check();
      const parsed = validateRunArguments(request.params.arguments, this.limits.maxTimeoutSeconds);
      if (typeof parsed === 'string') return inputError(parsed);
      const progressToken = extra._meta?.progressToken;
      const reporter = new ProgressReporter((progress, message) => {
        if (progressToken === undefined) return;
        extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => {});
      });
      const progress = (message: string): void => {
        if (progressToken !== undefined) reporter.report(message);
      };
      const target: ElicitationTarget = {
        modes: elicitationModes(server.getClientCapabilities()),
        ask: (params, signal) =>
          extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, { signal, timeout: 600_000 }),
      };
      try {
        const record = await this.queue.run(
          server,
          () =>
            elicitation.during(target, () =>
              this.host.run(parsed.code, {
                signal: extra.signal,
                timeoutMs: (parsed.timeoutSeconds ?? this.limits.defaultTimeoutSeconds) * 1000,
                memoryLimitMb: this.limits.memoryLimitMb,
                outputLimitBytes: this.limits.outputLimitBytes,
                ...(this.#confirmWrites ? { approveCall: approveThrough(target, extra.signal) } : {}),
                onElicitation: elicitation.handle,
                onProgress: (p) => progress(p.message ?? `${p.fn} ${p.progress}${p.total === undefined ? '' : `/${p.total}`}`),
                onOutput: (entry) => {
                  if (entry.kind === 'output' && entry.output.type === 'text') progress(clip(entry.output.text, 200));
                },
              }),
            ),
          extra.signal,
        );
        return runResult(record);
      } catch (error) {
        // Only the queue rejects (cancelled while waiting, or full): host.run reports everything in its record.
        return {
          content: [{ type: 'text', text: isBerryError(error) ? `${error.message} [${error.code}]` : String(error) }],
          isError: true,
        } satisfies CallToolResult;
      } finally {
        reporter.close();
      }
    });

    server.onerror = (error) => this.#warn(`client connection: ${error.message}`);
    const closed = server.onclose;
    server.onclose = () => {
      this.#sessions.delete(server);
      closed?.();
    };
    this.#sessions.add(server);
    await server.connect(transport);
    return server;
  }

  /** True while the client `session` has a run executing or waiting (an idle session may be evicted). */
  busy(session: Server): boolean {
    return this.queue.busy(session);
  }

  /** Closes every client session (aborting their runs). The host is the caller's to close. */
  async close(): Promise<void> {
    await Promise.all([...this.#sessions].map((s) => s.close().catch(() => {})));
  }

  async #runTool(loaded: LoadedConfig | Error, signal: AbortSignal): Promise<Tool> {
    return {
      name: 'run',
      title: 'Run a script against MCP servers',
      description: await describeRun(this.host, loaded, this.limits, { signatures: this.#signatures, signal }),
      inputSchema: {
        type: 'object',
        properties: {
          code: { type: 'string', description: 'JavaScript: the body of an async function' },
          timeoutSeconds: {
            type: 'number',
            exclusiveMinimum: 0,
            maximum: this.limits.maxTimeoutSeconds,
            description: `wall-clock limit of the run (default ${this.limits.defaultTimeoutSeconds})`,
          },
        },
        required: ['code'],
        additionalProperties: false,
      },
      outputSchema: RUN_OUTPUT_SCHEMA as unknown as Tool['outputSchema'],
      annotations: { title: 'Run a script', readOnlyHint: false, openWorldHint: true },
    };
  }
}
