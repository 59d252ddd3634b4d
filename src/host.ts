import type { ApproveCall } from './bindings/operations/approval/approval.js';
import type { ElicitationHandler } from './bindings/handlers.js';
import { MachineHost, runChecked, type McpHost, type McpHostOptions } from './bindings/index.js';
import { RunTrace } from './bindings/telemetry/index.js';
import { IsolatePool, parkedIsolates, runScript, type RunRecord, type RunScriptOptions } from './runtime/index.js';

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
  /**
   * `'calls'`: before the run starts, check the script's `tools.*` calls against the script API and the
   * catalogs of the servers they name; a certain mistake fails the run with SCRIPT_CHECK_FAILED before
   * anything is sent, and type warnings go to its log (docs/scripts.md). `'off'`: run it as it is.
   * @default 'calls'
   */
  readonly check?: 'calls' | 'off';
}

export interface HostOptions extends McpHostOptions {
  /**
   * Sandboxes (isolate + context, set up for the default run limits) kept made ahead of need, so a
   * run starts without making its own; each is used by one run only. 0 turns the pool off. @default 2
   */
  readonly warmIsolates?: number;
  /**
   * Called after a run when this process holds more isolates parked by a catastrophic out-of-memory
   * error than before (a script V8 could not stop gracefully, e.g. one that grows a Map to millions
   * of entries at a small memoryLimitMb). Each holds its memory (up to its limit + about 1.5 GB)
   * until the process ends, and the process can no longer exit normally (end it with SIGKILL). The
   * host keeps working: end the process when convenient, or run untrusted scripts in a process you
   * can throw away (as `berry-mcp serve` does).
   */
  readonly onParkedIsolate?: (event: { readonly parkedIsolates: number }) => void;
}

export interface Host extends McpHost {
  /** Runs a model-written script in a fresh isolate with `tools.mcp_*` (list, describe, call, read, prompt, search), `text`, `image` and `console`. */
  run(code: string, options?: RunOptions): Promise<RunRecord>;
}

/** The berry-mcp host: the MCP host's operations, and `run`, sandboxed scripts that use them. */
class BerryHost extends MachineHost implements Host {
  readonly #maxArgumentBytes: number | undefined;
  readonly #warm: IsolatePool;
  readonly #onParked: HostOptions['onParkedIsolate'];
  /** The process's parked isolates when this host last looked. */
  #parkedSeen = parkedIsolates();

  constructor({ warmIsolates, onParkedIsolate, ...options }: HostOptions) {
    // Checked first: a bad option must not leave a host half made.
    const warm = new IsolatePool(warmIsolates);
    super(options);
    this.#warm = warm;
    this.#maxArgumentBytes = options.maxArgumentBytes;
    this.#onParked = onParkedIsolate;
  }

  run(code: string, { approveCall, onElicitation, client, runScript: execute, check, ...runOptions }: RunOptions = {}): Promise<RunRecord> {
    if (check !== undefined && check !== 'calls' && check !== 'off')
      return Promise.reject(new TypeError(`check must be 'calls' or 'off', got ${String(check)}`));
    const hooks = { ...(onElicitation ? { onElicitation } : {}), ...(client ? { client } : {}) };
    // Made once per run, not per call: what every mcp_call of this run passes besides its own signal and progress.
    const callHooks = approveCall ? { approveCall, ...hooks } : hooks;
    // The run's span: its calls are its children, even when they come back from a serve worker.
    const traced = new RunTrace();
    const options: RunScriptOptions = {
      ...runOptions,
      // The host's cap reaches every run, so a script's call is refused in the sandbox, before it crosses.
      maxArgumentBytes: runOptions.maxArgumentBytes ?? this.#maxArgumentBytes,
      functions: {
        mcp_list: traced.within((args, context) => this.list(args as never, { signal: context.signal })),
        mcp_describe: traced.within((args, context) => this.describe(args as never, { signal: context.signal, ...(client ? { client } : {}) })),
        mcp_call: traced.within((args, context) =>
          this.call(args as never, {
            signal: context.signal,
            onProgress: (p) => context.onProgress({ ...p, label: `${p.server}/${p.tool}` }),
            ...callHooks,
          }),
        ),
        mcp_read: traced.within((args, context) => this.read(args as never, { signal: context.signal, ...hooks })),
        mcp_prompt: traced.within((args, context) => this.prompt(args as never, { signal: context.signal, ...hooks })),
        mcp_search: traced.within((args, context) => this.search(args as never, { signal: context.signal, ...(client ? { client } : {}) })),
      },
    };
    const start = (): Promise<RunRecord> => (execute ? execute(code, options) : runScript(code, options, this.#warm));
    const started =
      check === 'off'
        ? start()
        : runChecked(
            // Under the run's span: the servers the check starts are the run's.
            traced.within(() =>
              this.checkScript(code, { functions: Object.keys(options.functions), ...(client ? { client } : {}), ...checkLimits(runOptions) }),
            )(),
            start,
            runOptions.onOutput,
          );
    const running = started.then(
      (record) => (traced.end(record), record),
      (error: unknown) => {
        traced.end(undefined, error);
        throw error;
      },
    );
    return this.#onParked === undefined ? running : running.then((record) => this.#reportParked(record));
  }

  #reportParked(record: RunRecord): RunRecord {
    const parked = parkedIsolates();
    if (parked > this.#parkedSeen) {
      this.#parkedSeen = parked;
      try {
        this.#onParked?.({ parkedIsolates: parked });
      } catch {
        // The embedder's listener; the run's record is the caller's either way.
      }
    }
    return record;
  }

  override async close(): Promise<void> {
    // The waiting sandboxes first: nothing will take them now.
    this.#warm.close();
    await super.close();
  }
}

/** The run's signal and time limit bound the check's wait for catalogs too. */
function checkLimits({ signal, timeoutMs }: Omit<RunScriptOptions, 'functions'>): { signal?: AbortSignal; timeoutMs?: number } {
  return { ...(signal ? { signal } : {}), ...(timeoutMs === undefined ? {} : { timeoutMs }) };
}

export function createHost(options: HostOptions = {}): Host {
  return new BerryHost(options);
}
