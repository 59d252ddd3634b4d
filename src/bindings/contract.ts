/**
 * The script-facing contract of the three operations: what `tools.mcp_list`, `tools.mcp_describe`
 * and `tools.mcp_call` take and return. `typings/berry-mcp.d.ts` declares the same names for
 * editors; test/typings checks that the two stay in step.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { BerryErrorCode } from '../errors.js';

export interface ListRequest {
  /** Restrict discovery to this server. */
  readonly server?: string;
}

export interface DescribeRequest {
  readonly server: string;
  /** Omit to get the server's whole catalog and its instructions. */
  readonly tool?: string;
}

export interface CallRequest {
  readonly server: string;
  readonly tool: string;
  readonly arguments?: Record<string, unknown>;
}

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
    }
  | { readonly name: string; readonly status: 'disabled'; readonly transport: 'stdio' | 'http' }
  | { readonly name: string; readonly status: 'error'; readonly error: ServerErrorInfo }
  /** An HTTP server that needs sign-in: `error.message` names the command to run (`berry-mcp auth NAME`). */
  | { readonly name: string; readonly status: 'auth_required'; readonly transport: 'http'; readonly error: ServerErrorInfo };

export interface ListResult {
  /** The config file that was read (it may not exist: then there are no servers). */
  readonly configPath: string;
  readonly servers: readonly ServerStatus[];
}

export interface ToolDescription {
  readonly server: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Tool['inputSchema'];
  readonly outputSchema?: Tool['outputSchema'];
  readonly annotations?: Tool['annotations'];
}

export interface ServerDescription {
  readonly server: string;
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string };
  readonly protocolVersion?: string;
  readonly instructions?: string;
  readonly tools: readonly Omit<ToolDescription, 'server'>[];
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
