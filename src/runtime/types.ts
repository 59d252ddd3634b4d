import type { RunState } from './state/run-state.js';

/**
 * The public types of the sandbox layer. The layer knows nothing about MCP: it runs one script
 * against a table of async host functions.
 */

/** Progress a host function reports while it runs. */
export interface HostProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
  /** What the call is, for a person watching (e.g. `server/tool`); passed on to onProgress. */
  readonly label?: string;
}

/** A progress event of a run: which call (numbered in the run) of which function. */
export interface RunProgress {
  readonly fn: string;
  /** 1 for the run's first host call, 2 for the second… */
  readonly call: number;
  readonly label?: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** How a host error crosses into the sandbox: no stack, no cause, nothing but these strings. */
export interface ErrorShape {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

/** What a host function receives besides its arguments. */
export interface HostCallContext {
  /** Aborted when the run ends (done, error, timeout, abort) while this call is still running. */
  readonly signal: AbortSignal;
  readonly onProgress: (p: HostProgress) => void;
}

/**
 * A function exposed to scripts as `tools.<name>`. It receives the script's argument as a JSON
 * value (parsed from a JSON string) and its result must be JSON-serialisable. A thrown error
 * reaches the script as a plain `Error` with the same `name`, `message` and string `code`.
 */
export type HostFunction = (args: unknown, context: HostCallContext) => Promise<unknown>;

export interface RunScriptOptions {
  /** Functions exposed as `tools.<name>` inside the sandbox, e.g. { mcp_list, mcp_describe, mcp_call }. */
  readonly functions: Readonly<Record<string, HostFunction>>;
  /** Wall-clock limit for the whole run, including time awaiting host functions. @default 300000 */
  readonly timeoutMs?: number;
  /** Heap limit of the script's isolate, in MB (at least 8). @default 128 */
  readonly memoryLimitMb?: number;
  /**
   * Total bytes (UTF-8) of text outputs, logs and image data kept; past it the output says it was
   * truncated. The script's return value, as JSON, may be at most this many bytes too.
   * @default 1048576
   */
  readonly outputLimitBytes?: number;
  /**
   * Largest JSON (UTF-8 bytes) of the arguments of one `tools.<name>(args)` call. A larger one fails
   * that call in the script with code MCP_INVALID_ARGUMENT before anything reaches the host function.
   * @default 4194304
   */
  readonly maxArgumentBytes?: number;
  /**
   * Most `tools.*` calls of one run in flight on the host at once; later calls wait inside the
   * sandbox until one ends (so a loop starting calls without awaiting them cannot flood the host).
   * @default 64
   */
  readonly maxConcurrentCalls?: number;
  /** Aborting it ends the run with SCRIPT_ABORTED and aborts the host calls in flight. */
  readonly signal?: AbortSignal;
  /** Called for progress reported by host functions while they run. */
  readonly onProgress?: (p: RunProgress) => void;
  /** Called when a call that reported progress ends, so its progress display can go. */
  readonly onCallEnd?: (call: { readonly fn: string; readonly call: number }) => void;
  /** Name used in error positions, e.g. the script's file name. @default 'script.js' */
  readonly filename?: string;
  /** Called with each output and log entry as the script makes it (after budgeting), for streaming. */
  readonly onOutput?: (entry: RunEntry) => void;
  /**
   * What `store(key, value)` and `load(key)` use: one conversation's state (createRunState), kept
   * by the caller from run to run. Without one the run gets a fresh, empty state of its own.
   */
  readonly state?: RunState;
}

/** One entry of a run as it happens: a text or image output, or a console log. */
export type RunEntry = { readonly kind: 'output'; readonly output: RunOutput } | { readonly kind: 'log'; readonly log: RunLog };

export type RunOutput = { readonly type: 'text'; readonly text: string } | { readonly type: 'image'; readonly data: string; readonly mimeType: string };

export type RunLogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

export interface RunLog {
  readonly level: RunLogLevel;
  readonly text: string;
}

export interface RunError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  /** 1-based line in the script, when known. */
  readonly line?: number;
  /** 1-based column in the script, when known. */
  readonly column?: number;
  /** The script's own stack frames, innermost first, one a line (`at f (script.js:2:8)`), when it threw an Error. */
  readonly stack?: string;
  /** SCRIPT_CHECK_FAILED: every mistake the check before the run found (the message lists them too, bounded). */
  readonly problems?: readonly RunProblem[];
}

/** One mistake found before the run: where it is written in the script, its code (`CHECK_UNKNOWN_TOOL`…) and what to do. */
export interface RunProblem {
  readonly line: number;
  readonly column: number;
  readonly code: string;
  readonly message: string;
}

export interface RunRecord {
  readonly ok: boolean;
  /** The script's `return` value (JSON-cloned). */
  readonly result?: unknown;
  readonly outputs: readonly RunOutput[];
  readonly logs: readonly RunLog[];
  readonly error?: RunError;
  readonly durationMs: number;
  /** Host function calls made. */
  readonly calls: number;
}
