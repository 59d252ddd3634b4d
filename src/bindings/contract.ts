/**
 * The script-facing contract of the operations: what `tools.mcp_list`, `tools.mcp_describe`,
 * `tools.mcp_call`, `tools.mcp_read` and `tools.mcp_prompt` take and return. `typings/berry-mcp.d.ts` declares the same names for
 * editors; test/typings checks that the two stay in step.
 */
import type { CallToolResult, GetPromptResult, ReadResourceResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { BerryErrorCode } from '../errors.js';

export interface ListRequest {
  /** Restrict discovery to this server. */
  readonly server?: string;
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
      readonly tools: readonly ToolSummary[];
      /** Answered from the catalog saved on the target machine, without starting the server. */
      readonly cached?: { readonly ageMs: number };
      /** Not errors: e.g. an `enabledTools`/`disabledTools` name the server does not have. */
      readonly warnings?: readonly string[];
    }
  | { readonly name: string; readonly status: 'disabled'; readonly transport: 'stdio' | 'http' }
  | { readonly name: string; readonly status: 'error'; readonly error: ServerErrorInfo };

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
  readonly annotations?: Tool['annotations'];
  readonly taskSupport?: TaskSupport;
  /** Only with `schemas: true`: the raw JSON Schemas. */
  readonly inputSchema?: Tool['inputSchema'];
  readonly outputSchema?: Tool['outputSchema'];
}

/** One tool in a server's catalog: its call signature, enough to call it. */
export interface ToolSignature {
  readonly name: string;
  /** `name(arguments: {…}): {…}`, nested types included; descriptions left to `mcp_describe` of the tool. */
  readonly signature: string;
  /** The description's first sentence. */
  readonly description?: string;
  /** Annotation hints that are true (`readOnly`, `destructive`, `idempotent`, `openWorld`). */
  readonly hints?: readonly string[];
  readonly taskSupport?: TaskSupport;
}

export interface ResourceInfo {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

export interface ResourceTemplateInfo {
  /** An RFC 6570 URI template: fill it in and pass the URI to `mcp_read`. */
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

export interface PromptInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** `name` or `name?` (optional) per argument, with its description when there is one. */
  readonly arguments?: readonly string[];
}

export interface ServerDescription {
  readonly server: string;
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string };
  readonly protocolVersion?: string;
  readonly instructions?: string;
  readonly tools: readonly ToolSignature[];
  readonly resources: readonly ResourceInfo[];
  readonly resourceTemplates: readonly ResourceTemplateInfo[];
  readonly prompts: readonly PromptInfo[];
}

export type DescribeResult = ToolDescription | ServerDescription;

export type CallResult = CallToolResult;

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
}
