import { createMcpHost, type McpHost, type McpHostOptions } from './bindings/index.js';
import { runScript, type RunEntry, type RunRecord } from './runtime/index.js';

export interface RunOptions {
  /** Wall-clock limit for the whole run, tool calls included. @default 300000 */
  readonly timeoutMs?: number;
  /** @default 128 */
  readonly memoryLimitMb?: number;
  /** Budget for text outputs and logs. @default 1048576 */
  readonly outputLimitBytes?: number;
  /** Aborting ends the run and cancels its in-flight calls on their servers. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: { fn: string; progress: number; total?: number; message?: string }) => void;
  /** File name used in error positions. @default 'script.js' */
  readonly filename?: string;
  /** Each text/image output and log entry as the script makes it (for streaming). */
  readonly onOutput?: (entry: RunEntry) => void;
}

export type HostOptions = McpHostOptions;

export interface Host extends McpHost {
  /** Runs a model-written script in a fresh isolate with `tools.mcp_*`, `text`, `image` and `console`. */
  run(code: string, options?: RunOptions): Promise<RunRecord>;
}

/** The berry-mcp host: the three MCP operations plus sandboxed scripts that use them. */
export function createHost(options: HostOptions = {}): Host {
  const mcp = createMcpHost(options);
  const run = (code: string, runOptions: RunOptions = {}): Promise<RunRecord> =>
    runScript(code, {
      ...runOptions,
      functions: {
        mcp_list: (args, context) => mcp.list(args as never, { signal: context.signal }),
        mcp_describe: (args, context) => mcp.describe(args as never, { signal: context.signal }),
        mcp_call: (args, context) =>
          mcp.call(args as never, { signal: context.signal, onProgress: (p) => context.onProgress(p) }),
      },
    });
  return {
    machine: mcp.machine,
    cwd: mcp.cwd,
    list: (request, opts) => mcp.list(request, opts),
    describe: (request, opts) => mcp.describe(request, opts),
    call: (request, opts) => mcp.call(request, opts),
    readConfig: (signal) => mcp.readConfig(signal),
    typings: (opts) => mcp.typings(opts),
    withServer: (server, fn, signal) => mcp.withServer(server, fn, signal),
    authorize: (server, opts) => mcp.authorize(server, opts),
    logout: (server, opts) => mcp.logout(server, opts),
    close: () => mcp.close(),
    run,
  };
}
