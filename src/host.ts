import type { ApproveCall } from './mcp/operations/approval.js';
import type { ElicitationHandler } from './mcp/handlers.js';
import { createMcpHost, type McpHost, type McpHostOptions } from './mcp/index.js';
import { runScript, type RunEntry, type RunProgress, type RunRecord } from './runtime/index.js';

export interface RunOptions {
  /** Wall-clock limit for the whole run, tool calls included. @default 300000 */
  readonly timeoutMs?: number;
  /** @default 128 */
  readonly memoryLimitMb?: number;
  /** Budget for text outputs and logs. @default 1048576 */
  readonly outputLimitBytes?: number;
  /** Largest JSON of one `tools.*` call's arguments; larger fails that call with MCP_INVALID_ARGUMENT. @default 4194304 */
  readonly maxArgumentBytes?: number;
  /** Most `tools.*` calls in flight at once; later ones wait in the sandbox. @default 64 */
  readonly maxConcurrentCalls?: number;
  /** Aborting ends the run and cancels its in-flight calls on their servers. */
  readonly signal?: AbortSignal;
  /** Progress of the script's calls; `label` is `server/tool`. */
  readonly onProgress?: (event: RunProgress) => void;
  /** A call that reported progress has ended. */
  readonly onCallEnd?: (call: { readonly fn: string; readonly call: number }) => void;
  /** File name used in error positions. @default 'script.js' */
  readonly filename?: string;
  /** Each text/image output and log entry as the script makes it (for streaming). */
  readonly onOutput?: (entry: RunEntry) => void;
  /** This run's approval hook, in place of the host's `approveCall` (serve --confirm-writes asks the run's own client). */
  readonly approveCall?: ApproveCall;
  /** Answers the elicitations this run's calls cause, in place of the host's `onElicitation` (serve asks the run's own client). */
  readonly onElicitation?: ElicitationHandler;
}

export type HostOptions = McpHostOptions;

export interface Host extends McpHost {
  /** Runs a model-written script in a fresh isolate with `tools.mcp_*` (list, describe, call, read, prompt), `text`, `image` and `console`. */
  run(code: string, options?: RunOptions): Promise<RunRecord>;
}

/** The berry-mcp host: the three MCP operations plus sandboxed scripts that use them. */
export function createHost(options: HostOptions = {}): Host {
  const mcp = createMcpHost(options);
  const run = (code: string, { approveCall, onElicitation, ...runOptions }: RunOptions = {}): Promise<RunRecord> =>
    runScript(code, {
      ...runOptions,
      functions: {
        mcp_list: (args, context) => mcp.list(args as never, { signal: context.signal }),
        mcp_describe: (args, context) => mcp.describe(args as never, { signal: context.signal }),
        mcp_call: (args, context) =>
          mcp.call(args as never, {
            signal: context.signal,
            onProgress: (p) => context.onProgress({ ...p, label: `${p.server}/${p.tool}` }),
            ...(approveCall ? { approveCall } : {}),
            ...(onElicitation ? { onElicitation } : {}),
          }),
        mcp_read: (args, context) => mcp.read(args as never, { signal: context.signal, ...(onElicitation ? { onElicitation } : {}) }),
        mcp_prompt: (args, context) => mcp.prompt(args as never, { signal: context.signal, ...(onElicitation ? { onElicitation } : {}) }),
      },
    });
  return {
    machine: mcp.machine,
    cwd: mcp.cwd,
    list: (request, opts) => mcp.list(request, opts),
    describe: (request, opts) => mcp.describe(request, opts),
    call: (request, opts) => mcp.call(request, opts),
    read: (request, opts) => mcp.read(request, opts),
    prompt: (request, opts) => mcp.prompt(request, opts),
    readConfig: (signal) => mcp.readConfig(signal),
    typings: (opts) => mcp.typings(opts),
    withServer: (server, fn, signal) => mcp.withServer(server, fn, signal),
    authorize: (server, opts) => mcp.authorize(server, opts),
    logout: (server, opts) => mcp.logout(server, opts),
    close: () => mcp.close(),
    run,
  };
}
