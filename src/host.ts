import type { ApproveCall } from './mcp/operations/approval.js';
import type { ElicitationHandler } from './mcp/handlers.js';
import { MachineHost, type McpHost, type McpHostOptions } from './mcp/index.js';
import { runScript, type RunRecord, type RunScriptOptions } from './runtime/index.js';

/**
 * `host.run`'s options: runScript's, less the function table (the host supplies `tools.mcp_*`),
 * with `maxArgumentBytes` defaulting to the host's, and two hooks of this run's own.
 */
export interface RunOptions extends Omit<RunScriptOptions, 'functions'> {
  /** This run's approval hook, in place of the host's `approveCall` (serve --confirm-writes asks the run's own client). */
  readonly approveCall?: ApproveCall;
  /** Answers the elicitations this run's calls cause, in place of the host's `onElicitation` (serve asks the run's own client). */
  readonly onElicitation?: ElicitationHandler;
  /** Where the script runs: runScript on this thread by default; serve passes its worker pool's. */
  readonly runScript?: (code: string, options: RunScriptOptions) => Promise<RunRecord>;
}

export type HostOptions = McpHostOptions;

export interface Host extends McpHost {
  /** Runs a model-written script in a fresh isolate with `tools.mcp_*` (list, describe, call, read, prompt), `text`, `image` and `console`. */
  run(code: string, options?: RunOptions): Promise<RunRecord>;
}

/** The berry-mcp host: the MCP host's operations, and `run`, sandboxed scripts that use them. */
class BerryHost extends MachineHost implements Host {
  readonly #maxArgumentBytes: number | undefined;

  constructor(options: HostOptions) {
    super(options);
    this.#maxArgumentBytes = options.maxArgumentBytes;
  }

  run(code: string, { approveCall, onElicitation, runScript: execute = runScript, ...runOptions }: RunOptions = {}): Promise<RunRecord> {
    const hooks = onElicitation ? { onElicitation } : {};
    return execute(code, {
      ...runOptions,
      // The host's cap reaches every run, so a script's call is refused in the sandbox, before it crosses.
      maxArgumentBytes: runOptions.maxArgumentBytes ?? this.#maxArgumentBytes,
      functions: {
        mcp_list: (args, context) => this.list(args as never, { signal: context.signal }),
        mcp_describe: (args, context) => this.describe(args as never, { signal: context.signal }),
        mcp_call: (args, context) =>
          this.call(args as never, {
            signal: context.signal,
            onProgress: (p) => context.onProgress({ ...p, label: `${p.server}/${p.tool}` }),
            ...(approveCall ? { approveCall } : {}),
            ...hooks,
          }),
        mcp_read: (args, context) => this.read(args as never, { signal: context.signal, ...hooks }),
        mcp_prompt: (args, context) => this.prompt(args as never, { signal: context.signal, ...hooks }),
      },
    });
  }
}

export function createHost(options: HostOptions = {}): Host {
  return new BerryHost(options);
}
