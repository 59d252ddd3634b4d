/**
 * The script-facing contract of the operations: what `tools.mcp_list`, `tools.mcp_describe`,
 * `tools.mcp_call`, `tools.mcp_read`, `tools.mcp_prompt` and `tools.mcp_search` take and return. `typings/berry-mcp.d.ts` declares the same names for
 * editors; test/typings checks that the two stay in step.
 */
import type { CallToolResult, GetPromptResult, ReadResourceResult, Tool } from '@modelcontextprotocol/client';
import type { BerryErrorCode } from '../common/errors.js';
import type { ElicitationHandler } from './handlers.js';

export interface ListRequest {
  /** Restrict discovery to this server. */
  readonly server?: string;
  /** Dial every server even when a saved catalog could answer (see `cached` in the result). */
  readonly refresh?: boolean;
}

export interface DescribeRequest {
  readonly server: string;
  /** Omit to get the server's whole catalog and its instructions. */
  readonly tool?: string;
  /** With `tool`: also return the raw JSON Schemas (`inputSchema`, `outputSchema`). */
  readonly schemas?: boolean;
}

export interface CallRequest {
  readonly server: string;
  readonly tool: string;
  readonly arguments?: Record<string, unknown>;
}

export interface ReadRequest {
  readonly server: string;
  /** A resource's URI, or a resource template filled in by the caller. */
  readonly uri: string;
}

/** `resources/read`'s result: `contents`, each with `text` or base64 `blob`. */
export type ReadResult = ReadResourceResult;

export interface PromptRequest {
  readonly server: string;
  readonly name: string;
  /** The prompt's arguments (strings; numbers and booleans are converted). */
  readonly arguments?: Record<string, string | number | boolean>;
}

/** `prompts/get`'s result: `description?` and `messages` (`role` + content block). */
export type PromptResult = GetPromptResult;

export interface ToolSummary {
  readonly name: string;
  /** First sentence of the description, at most 160 characters. */
  readonly description: string;
}

export interface ServerErrorInfo {
  readonly code: BerryErrorCode;
  readonly message: string;
}

export type ServerStatus =
  | {
      readonly name: string;
      readonly status: 'connected';
      readonly transport: 'stdio' | 'http';
      /** The MCP revision spoken, e.g. `2026-07-28` (found by `server/discover`) or `2025-11-25` (`initialize`). */
      readonly protocol?: string;
      readonly tools: readonly ToolSummary[];
      /** Answered from the catalog saved on the target machine, without starting the server. */
      readonly cached?: { readonly ageMs: number };
      /** Not errors: e.g. an `enabledTools`/`disabledTools` name the server does not have. */
      readonly warnings?: readonly string[];
    }
  | { readonly name: string; readonly status: 'disabled'; readonly transport: 'stdio' | 'http' }
  | {
      readonly name: string;
      readonly status: 'error';
      readonly error: ServerErrorInfo;
      /**
       * A server whose start failed and is backing off, with a catalog saved earlier: the tools it
       * had then (calls fail with `error` until it starts again).
       */
      readonly tools?: readonly ToolSummary[];
      readonly cached?: { readonly ageMs: number };
    }
  /** An HTTP server that needs sign-in: `error.message` names the command to run (`berry-mcp auth NAME`). */
  | { readonly name: string; readonly status: 'auth_required'; readonly transport: 'http'; readonly error: ServerErrorInfo };

export interface ListResult {
  /** The config file that was read (it may not exist: then there are no servers). */
  readonly configPath: string;
  readonly servers: readonly ServerStatus[];
}

/** How a tool runs as an MCP task; berry-mcp polls the task and returns the ordinary result. */
export type TaskSupport = 'optional' | 'required';

export interface ToolDescription {
  readonly server: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** The TypeScript type of `arguments`, each property's description as a comment. */
  readonly arguments: string;
  /** The TypeScript type of `structuredContent`, when the tool declares an output schema. */
  readonly structuredContent?: string;
  /**
   * For a tool without an output schema: the type of its results as observed by berry-mcp over
   * earlier calls (types only), `(observed over 3 calls) { … }`; `, JSON in content[0].text` when
   * the value came as JSON text rather than `structuredContent`.
   */
  readonly returns?: string;
  readonly annotations?: Tool['annotations'];
  readonly taskSupport?: TaskSupport;
  /**
   * The `ui://` resource an MCP Apps host renders this tool's results with (MCP Apps extension,
   * `_meta.ui.resourceUri`). berry-mcp shows no UI: `content` is the tool's text for a model, and
   * `structuredContent` may be shaped for the app. `mcp_read` gives the app's HTML.
   */
  readonly ui?: string;
  /** Only with `schemas: true`: the raw JSON Schemas. */
  readonly inputSchema?: Tool['inputSchema'];
  readonly outputSchema?: Tool['outputSchema'];
}

/**
 * A server's catalog, sized for a model: one line per entry, keyed by what a script passes back.
 * Describe a tool for its full description, commented argument types and annotations.
 */
export interface ServerDescription {
  readonly server: string;
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string };
  readonly protocolVersion?: string;
  readonly instructions?: string;
  /**
   * Tool name → its call signature with nested types (the `arguments` object, then the type of
   * `structuredContent` when the tool declares one, or `returns (observed over N calls) …` when
   * berry-mcp has seen it return data), the description's first sentence and flags:
   * `({ path: string; head?: number }) => { content: string } — Read a file. [readOnly]`.
   * Flags: `readOnly`, `destructive`, `task required` / `task optional`, `ui` (an MCP App shows its
   * results: describe the tool for its `ui://` resource). Tools a server keeps for its MCP App
   * (`_meta.ui.visibility` without "model") are not listed, and cannot be called.
   */
  readonly tools: Readonly<Record<string, string>>;
  /** Resource URI (pass it to `mcp_read`) → `name (mimeType) — description`. */
  readonly resources: Readonly<Record<string, string>>;
  /** URI template (fill it in, then `mcp_read`) → `name (mimeType) — description`. */
  readonly resourceTemplates: Readonly<Record<string, string>>;
  /** Prompt name (pass it to `mcp_prompt`) → `(required, optional?) — description`. */
  readonly prompts: Readonly<Record<string, string>>;
  /** A list the server failed to give (its other lists are still here). */
  readonly warnings?: readonly string[];
}

export type DescribeResult = ToolDescription | ServerDescription;

export type CallResult = CallToolResult;

/** `mcp_search`: tools across servers by what they do (names, titles, descriptions, argument names). */
export interface SearchRequest {
  /** Words or a tool name, e.g. `"write file"`; at most 300 characters. */
  readonly query: string;
  /** Search one server's tools only. */
  readonly server?: string;
  /** How many tools to return, best first: 1 to 50. @default 10 */
  readonly limit?: number;
}

export interface SearchHit {
  readonly server: string;
  readonly name: string;
  readonly title?: string;
  /** First sentence of the description, one line, at most 160 characters. */
  readonly description: string;
  /** The call signature as `mcp_describe({ server })` gives it: `({ path: string }) => { … }`. */
  readonly signature: string;
}

export interface SearchResult {
  /** Best first; tools a filter or MCP Apps hides never appear. */
  readonly tools: readonly SearchHit[];
}

export interface ProgressEvent {
  readonly server: string;
  readonly tool: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface OperationOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Answers the elicitations this call, read or prompt causes, in place of the host's (a served run's). */
  readonly onElicitation?: ElicitationHandler;
  /**
   * Who the operation is for: an opaque object, the same for every operation of one client (serve
   * passes one per session). Result types learned from one client's calls are shown in that
   * client's `describe` only, and kept in memory while the object lives; without it the operation is
   * the host's own, whose learning is saved with the catalogs (`savedCatalogs`).
   */
  readonly client?: object;
}
