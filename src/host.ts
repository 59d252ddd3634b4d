import type { ApproveCall } from './mcp/operations/approval.js';
import type { ElicitationHandler } from './mcp/handlers.js';
import { MachineHost, type McpHost, type McpHostOptions } from './mcp/index.js';
import { IsolatePool, runScript, type RunRecord, type RunScriptOptions } from './runtime/index.js';

/**
 * `host.run`'s options: runScript's, less the function table (the host supplies `tools.mcp_*`),
 * with `maxArgumentBytes` defaulting to the host's, and two hooks of this run's own.
 */
export interface RunOptions extends Omit<RunScriptOptions, 'functions'> {
  /** This run's approval hook, in place of the host's `approveCall` (serve --confirm-writes asks the run's own client). */
  readonly approveCall?: ApproveCall;
  /** Answers the elicitations this run's calls cause, in place of the host's `onElicitation` (serve asks the run's own client). */
  readonly onElicitation?: ElicitationHandler;
  /**
   * Who the run is for (see OperationOptions.client): its `mcp_describe` shows only result types
   * that this client's own calls taught. serve passes one object per client.
   */
  readonly client?: object;
  /** Where the script runs: runScript on this thread (from this host's warm pool) by default; serve passes its worker pool's. */
  readonly runScript?: (code: string, options: RunScriptOptions) => Promise<RunRecord>;
}

export interface HostOptions extends McpHostOptions {
  /**
   * Sandboxes (isolate + context, set up for the default run limits) kept made ahead of need, so a
   * run starts without making its own; each is used by one run only. 0 turns the pool off. @default 2
   */
  readonly warmIsolates?: number;
}

export interface Host extends McpHost {
  /** Runs a model-written script in a fresh isolate with `tools.mcp_*` (list, describe, call, read, prompt), `text`, `image` and `console`. */
  run(code: string, options?: RunOptions): Promise<RunRecord>;
}

/** The berry-mcp host: the MCP host's operations, and `run`, sandboxed scripts that use them. */
class BerryHost extends MachineHost implements Host {
  readonly #maxArgumentBytes: number | undefined;
  readonly #warm: IsolatePool;

  constructor({ warmIsolates, ...options }: HostOptions) {
    // Checked first: a bad option must not leave a host half made.
    const warm = new IsolatePool(warmIsolates);
    super(options);
    this.#warm = warm;
    this.#maxArgumentBytes = options.maxArgumentBytes;
  }

  run(code: string, { approveCall, onElicitation, client, runScript: execute, ...runOptions }: RunOptions = {}): Promise<RunRecord> {
    const hooks = { ...(onElicitation ? { onElicitation } : {}), ...(client ? { client } : {}) };
    // Made once per run, not per call: what every mcp_call of this run passes besides its own signal and progress.
    const callHooks = approveCall ? { approveCall, ...hooks } : hooks;
    const options: RunScriptOptions = {
      ...runOptions,
      // The host's cap reaches every run, so a script's call is refused in the sandbox, before it crosses.
      maxArgumentBytes: runOptions.maxArgumentBytes ?? this.#maxArgumentBytes,
      functions: {
        mcp_list: (args, context) => this.list(args as never, { signal: context.signal }),
        mcp_describe: (args, context) => this.describe(args as never, { signal: context.signal, ...(client ? { client } : {}) }),
        mcp_call: (args, context) =>
          this.call(args as never, {
            signal: context.signal,
            onProgress: (p) => context.onProgress({ ...p, label: `${p.server}/${p.tool}` }),
            ...callHooks,
          }),
        mcp_read: (args, context) => this.read(args as never, { signal: context.signal, ...hooks }),
        mcp_prompt: (args, context) => this.prompt(args as never, { signal: context.signal, ...hooks }),
      },
    };
    return execute ? execute(code, options) : runScript(code, options, this.#warm);
  }

  override async close(): Promise<void> {
    // The waiting sandboxes first: nothing will take them now.
    this.#warm.close();
    await super.close();
  }
}

export function createHost(options: HostOptions = {}): Host {
  return new BerryHost(options);
}
