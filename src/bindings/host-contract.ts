/** What an MCP host offers: the five script-facing operations, typings, sign-in, and close. */
import type { LoadedConfig } from '../config/index.js';
import type { Store } from '../store/index.js';
import type { Machine } from '../remote/machine/index.js';
import type { ServerConnection } from './connection/connection.js';
import type {
  CallRequest,
  CallResult,
  DescribeRequest,
  DescribeResult,
  ListRequest,
  ListResult,
  OperationOptions,
  PromptRequest,
  PromptResult,
  ReadRequest,
  ReadResult,
  SearchRequest,
  SearchResult,
} from './contract.js';
import type { CallOperationOptions } from './operations/call-operation.js';
import type { AuthorizeResult } from './operations/sign-in.js';

export type { CallOperationOptions };

export interface McpHost {
  readonly machine: Machine;
  readonly cwd: string;
  /** Where sign-in records, saved catalogs and observed types are kept (the `store` option). */
  readonly store: Store;
  list(request?: ListRequest, options?: OperationOptions): Promise<ListResult>;
  describe(request: DescribeRequest, options?: OperationOptions): Promise<DescribeResult>;
  call(request: CallRequest, options?: CallOperationOptions): Promise<CallResult>;
  /** `resources/read` of one resource (a template filled in by the caller). */
  read(request: ReadRequest, options?: OperationOptions): Promise<ReadResult>;
  /** `prompts/get`: a prompt's messages, filled with `arguments`. */
  prompt(request: PromptRequest, options?: OperationOptions): Promise<PromptResult>;
  /** The tools that best match a query across servers (or one), best first, from live or saved catalogs. */
  search(request: SearchRequest, options?: OperationOptions): Promise<SearchResult>;
  /** The config as read now, for tools that need the server list (typings). */
  readConfig(signal?: AbortSignal): Promise<LoadedConfig>;
  /** A .d.ts typing `tools.mcp_call`/`mcp_describe` per configured server (or one) and tool; broken servers become warnings. */
  /** `client`: whose learned result types to include (see OperationOptions.client); the host's own when absent. */
  typings(options?: { readonly signal?: AbortSignal; readonly server?: string; readonly client?: object }): Promise<string>;
  /**
   * Signs in to an HTTP server now (even if tokens are stored), through `onAuthorizationUrl`, and
   * keeps the tokens for every later connection.
   */
  authorize(server: string, options?: { readonly signal?: AbortSignal }): Promise<AuthorizeResult>;
  /** Removes the stored tokens and registered client of an HTTP server; true when there were any. */
  logout(server: string, options?: { readonly signal?: AbortSignal }): Promise<boolean>;
  /** Runs `fn` on a pooled connection to `server`. */
  withServer<T>(server: string, fn: (connection: ServerConnection) => Promise<T>, signal?: AbortSignal): Promise<T>;
  close(): Promise<void>;
}
