/**
 * berry-mcp script API: the globals a berry-mcp script sees.
 *
 * A script is the body of an async function, in JavaScript or TypeScript (its types are stripped;
 * enums, namespaces with values and parameter properties are refused): top-level `await` works,
 * MCP servers are reached through `tools.mcp_search`, `tools.mcp_list`, `tools.mcp_describe`,
 * `tools.mcp_call`, `tools.mcp_read` and `tools.mcp_prompt`, outputs are appended with `text()`
 * and `image()`, and `store()`/`load()` keep values for later runs. There is no Node and no DOM
 * in the sandbox.
 *
 * Use it from a script file with
 *
 *     /// <reference types="berry-mcp/script" />
 *
 * or for a whole folder of scripts with a tsconfig.json such as
 *
 *     {
 *       "compilerOptions": {
 *         "target": "ES2022", "module": "preserve", "moduleDetection": "force",
 *         "lib": ["ES2023"], "types": ["berry-mcp/script"],
 *         "allowJs": true, "checkJs": true, "strict": true, "noEmit": true
 *       }
 *     }
 *
 * or on the command line, without a tsconfig:
 *
 *     tsc --noEmit --allowJs --checkJs --strict --target es2022 --module preserve \
 *         --moduleDetection force --lib es2023 script.js [berry-mcp.servers.d.ts]
 *
 * `moduleDetection: "force"` makes every script a module (so top-level `await` is allowed and
 * scripts do not share top-level names) without an `export` the sandbox would reject.
 * `module: "preserve"` (TypeScript 5.4 or later; before: `"module": "esnext", "moduleResolution":
 * "bundler"`) resolves `berry-mcp/script` through the package's exports. `lib` without `"dom"`
 * and no Node types: neither exists in the sandbox. A top-level `return` works in the sandbox but
 * tsc rejects it (TS1108): report results with `text()`.
 *
 * Server-specific types: `berry-mcp typings -o berry-mcp.servers.d.ts` writes a file that fills
 * `BerryMcp.Servers`; include it next to the scripts and `tools.mcp_call` checks server and tool
 * names, arguments and `structuredContent` against the servers' schemas. Without that file any
 * server and tool name is accepted and arguments are `Record<string, unknown>`.
 *
 * The names of the request and result types match berry-mcp's host contract
 * (`src/bindings/contract.ts`); a test keeps the two in step.
 */
declare namespace BerryMcp {
  // ---------------------------------------------------------------------------------------------
  // Errors

  /** The stable code of every error berry-mcp reports. Branch on it, never on message text. */
  type ErrorCode =
    | 'MCP_CONFIG_INVALID'
    | 'MCP_ENV_MISSING'
    | 'MCP_UNKNOWN_SERVER'
    | 'MCP_UNKNOWN_TOOL'
    | 'MCP_SERVER_DISABLED'
    | 'MCP_INVALID_ARGUMENT'
    | 'MCP_CONNECT_FAILED'
    | 'MCP_TIMEOUT'
    | 'MCP_CANCELLED'
    | 'MCP_TRANSPORT_CLOSED'
    | 'MCP_SESSION_EXPIRED'
    | 'MCP_PROTOCOL_ERROR'
    | 'MCP_PROTOCOL_VERSION_UNSUPPORTED'
    | 'MCP_HEADER_MISMATCH'
    | 'MCP_CAPABILITY_MISSING'
    | 'MCP_INPUT_UNSUPPORTED'
    | 'MCP_AUTH_REQUIRED'
    | 'MCP_AUTH_RESPONSE_TOO_LARGE'
    | 'MCP_AUTH_ISSUER_MISMATCH'
    | 'MCP_TOKEN_STORE_UNSAFE'
    | 'MCP_UNKNOWN_RESOURCE'
    | 'MCP_UNKNOWN_PROMPT'
    | 'MCP_CALL_REFUSED'
    | 'MCP_MESSAGE_TOO_LARGE'
    | 'MCP_RESULT_TOO_LARGE'
    | 'MCP_SANDBOX_UNAVAILABLE'
    | 'MCP_HOST_CLOSED'
    | 'MCP_CONFIG_CHANGED'
    | 'MCP_CONFIG_WRITE_FAILED'
    | 'MACHINE_UNAVAILABLE'
    | 'SCRIPT_ERROR'
    | 'SCRIPT_TIMEOUT'
    | 'SCRIPT_MEMORY_LIMIT'
    | 'SCRIPT_ABORTED'
    | 'SCRIPT_SETUP_FAILED'
    | 'SCRIPT_TYPESCRIPT_UNSUPPORTED'
    | 'SCRIPT_STATE_LIMIT'
    | 'SCRIPT_CHECK_FAILED'
    | 'SERVE_QUEUE_FULL'
    | 'SERVE_SESSION_LIMIT'
    | 'SERVE_STREAM_LIMIT'
    | 'SERVE_STATE_UNKNOWN'
    | 'SERVE_WORKER_FAILED'
    | 'BERRY_STORE_UNAVAILABLE'
    | 'BERRY_STORE_KEY_INVALID'
    | 'BERRY_STORE_RECORD_INVALID';

  /**
   * What an operation rejects with when the host could not do it (unknown server, connection
   * failure, timeout...): an `Error` with a stable `code`. Arguments that are not JSON data
   * reject with a plain `TypeError` (no `code`). A tool that reports an error does not reject:
   * its result has `isError: true`.
   *
   * @example
   * try { await tools.mcp_call({ server: "docs", tool: "search", arguments: {} }); }
   * catch (e) { if ((e as BerryMcp.ScriptError).code === "MCP_TIMEOUT") text("timed out"); }
   */
  interface ScriptError extends Error {
    readonly code?: ErrorCode;
  }

  // ---------------------------------------------------------------------------------------------
  // MCP content blocks (as the MCP SDK parses them)

  /** Free-form metadata. */
  interface Meta {
    [key: string]: unknown;
  }

  /** Hints about who a block is for and how important it is. */
  interface Annotations {
    audience?: ('user' | 'assistant')[];
    priority?: number;
    /** ISO 8601 date-time. */
    lastModified?: string;
  }

  interface Icon {
    src: string;
    mimeType?: string;
    sizes?: string[];
    theme?: 'light' | 'dark';
  }

  interface TextContent {
    type: 'text';
    text: string;
    annotations?: Annotations;
    _meta?: Meta;
  }

  interface ImageContent {
    type: 'image';
    /** Base64-encoded image data. */
    data: string;
    /** For example `image/png`. */
    mimeType: string;
    annotations?: Annotations;
    _meta?: Meta;
  }

  /** What `image()` takes: an image block as `mcp_call` returns it, or written by hand without `type`. */
  interface ImageInput {
    type?: 'image';
    /** Base64-encoded image data. */
    data: string;
    /** For example `image/png`. */
    mimeType: string;
    annotations?: Annotations;
    _meta?: Meta;
  }

  interface AudioContent {
    type: 'audio';
    /** Base64-encoded audio data. */
    data: string;
    mimeType: string;
    annotations?: Annotations;
    _meta?: Meta;
  }

  /** A link to a resource the server can read; its content is not included. */
  interface ResourceLink {
    type: 'resource_link';
    uri: string;
    name: string;
    title?: string;
    description?: string;
    mimeType?: string;
    /** Size in bytes, when known. */
    size?: number;
    annotations?: Annotations;
    icons?: Icon[];
    _meta?: Meta;
  }

  interface TextResourceContents {
    uri: string;
    mimeType?: string;
    text: string;
    _meta?: Meta;
  }

  interface BlobResourceContents {
    uri: string;
    mimeType?: string;
    /** Base64-encoded bytes. */
    blob: string;
    _meta?: Meta;
  }

  /** A resource embedded in the result: text or binary (`blob`). */
  interface EmbeddedResource {
    type: 'resource';
    resource: TextResourceContents | BlobResourceContents;
    annotations?: Annotations;
    _meta?: Meta;
  }

  /** One block of a tool result's `content`; narrow it with `block.type`. */
  type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

  /** The `_meta` of a tool result. */
  interface ResultMeta {
    [key: string]: unknown;
    progressToken?: string | number;
    'io.modelcontextprotocol/related-task'?: { taskId: string };
  }

  /** A JSON Schema for a tool's arguments or structured result: always an object schema. */
  /** A JSON value. */
  type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

  interface ObjectSchema {
    [keyword: string]: unknown;
    type: 'object';
    properties?: { [name: string]: JsonValue };
    required?: string[];
  }

  interface ToolAnnotations {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  }

  // ---------------------------------------------------------------------------------------------
  // The contract: requests and results of the five operations (list, describe, call, read, prompt)

  interface ListRequest {
    /** Restrict discovery to this server. */
    readonly server?: string;
    /** Dial every server even when a saved catalog could answer (see `cached` in the result). */
    readonly refresh?: boolean;
  }

  interface DescribeRequest {
    readonly server: string;
    /** Omit to get the server's whole catalog and its instructions. */
    readonly tool?: string;
    /** With `tool`: also return the raw JSON Schemas (`inputSchema`, `outputSchema`). */
    readonly schemas?: boolean;
  }

  interface CallRequest {
    readonly server: string;
    readonly tool: string;
    readonly arguments?: Record<string, unknown>;
  }

  interface ReadRequest {
    readonly server: string;
    /** A resource's URI, or a resource template filled in by the caller. */
    readonly uri: string;
  }

  /** `resources/read`'s result: `contents`, each with `text` or base64 `blob`. */
  type ReadResult = {
    contents: (TextResourceContents | BlobResourceContents)[];
    _meta?: Meta;
  };

  interface PromptRequest {
    readonly server: string;
    readonly name: string;
    /** The prompt's arguments (strings; numbers and booleans are converted). */
    readonly arguments?: Record<string, string | number | boolean>;
  }

  /** One message of a prompt. */
  interface PromptMessage {
    role: 'user' | 'assistant';
    content: ContentBlock;
  }

  /** `prompts/get`'s result: `description?` and `messages` (`role` + content block). */
  type PromptResult = {
    description?: string;
    messages: PromptMessage[];
    _meta?: Meta;
  };

  interface ToolSummary {
    readonly name: string;
    /** First sentence of the description, at most 160 characters. */
    readonly description: string;
  }

  interface ServerErrorInfo {
    readonly code: ErrorCode;
    readonly message: string;
  }

  /** One configured server in `mcp_list`'s answer; narrow it with `status`. */
  type ServerStatus =
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
    | { readonly name: string; readonly status: 'error'; readonly error: ServerErrorInfo }
    /** An HTTP server that needs sign-in: `error.message` names the command the user should run. */
    | { readonly name: string; readonly status: 'auth_required'; readonly transport: 'http'; readonly error: ServerErrorInfo };

  interface ListResult {
    /** The config file that was read (it may not exist: then there are no servers). */
    readonly configPath: string;
    readonly servers: readonly ServerStatus[];
  }

  /** How a tool runs as an MCP task; berry-mcp polls the task and returns the ordinary result. */
  type TaskSupport = 'optional' | 'required';

  interface ToolDescription {
    readonly server: string;
    readonly name: string;
    readonly title?: string;
    readonly description?: string;
    /** The TypeScript type of `arguments`, each property's description as a comment. */
    readonly arguments: string;
    /** The TypeScript type of `structuredContent`, when the tool declares an output schema. */
    readonly structuredContent?: string;
    /**
     * For a tool without an output schema: the type of its results as observed over earlier calls
     * (types only), `(observed over 3 calls) { … }`; `, JSON in content[0].text` when the value
     * came as JSON text rather than `structuredContent`.
     */
    readonly returns?: string;
    readonly annotations?: ToolAnnotations;
    readonly taskSupport?: TaskSupport;
    /**
     * The `ui://` resource an MCP Apps host renders this tool's results with (MCP Apps extension,
     * `_meta.ui.resourceUri`). berry-mcp shows no UI: `content` is the tool's text for a model, and
     * `structuredContent` may be shaped for the app. `mcp_read` gives the app's HTML.
     */
    readonly ui?: string;
    /** Only with `schemas: true`: the raw JSON Schemas. */
    readonly inputSchema?: ObjectSchema;
    /** Any JSON Schema (2026-07-28 lets a tool's output be any JSON value). */
    readonly outputSchema?: { [keyword: string]: unknown };
  }

  /**
   * A server's catalog, sized for a model: one line per entry, keyed by what a script passes back.
   * Describe a tool for its full description, commented argument types and annotations.
   */
  interface ServerDescription {
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

  /** `mcp_describe`'s answer: a `ToolDescription` when `tool` was given, else a `ServerDescription`. */
  type DescribeResult = ToolDescription | ServerDescription;

  /**
   * The full MCP result of a tool call, with `structuredContent` of type `Structured`.
   * (A type alias, not an interface: a misspelt property is an error, yet it stays assignable
   * to the SDK's open-ended result type.)
   */
  type CallResultWith<Structured> = {
    /** The result's blocks; narrow each with `block.type`. */
    content: ContentBlock[];
    /** Present when the tool returns structured data (tools with an output schema must). */
    structuredContent?: Structured;
    /** True when the tool reports an error; the blocks then say what went wrong. */
    isError?: boolean;
    _meta?: ResultMeta;
  };

  /** The full MCP result of a tool call; `structuredContent` may be any JSON value (2026-07-28). */
  type CallResult = CallResultWith<unknown>;

  /** `mcp_search`'s request: tools across servers by what they do. */
  interface SearchRequest {
    /** Words or a tool name, e.g. `"write file"`; at most 300 characters. */
    readonly query: string;
    /** Search one server's tools only. */
    readonly server?: string;
    /** How many tools to return, best first: 1 to 50 (default 10). */
    readonly limit?: number;
  }

  interface SearchHit {
    readonly server: string;
    readonly name: string;
    readonly title?: string;
    /** First sentence of the description, one line. */
    readonly description: string;
    /** The call signature as `mcp_describe({ server })` gives it. */
    readonly signature: string;
  }

  /** `mcp_search`'s answer: the best-matching tools, best first. */
  interface SearchResult {
    readonly tools: readonly SearchHit[];
  }

  /** Progress reported by a running tool (the host forwards it; scripts do not receive it). */
  interface ProgressEvent {
    readonly server: string;
    readonly tool: string;
    readonly progress: number;
    readonly total?: number;
    readonly message?: string;
  }

  // ---------------------------------------------------------------------------------------------
  // Server-specific typing

  /**
   * Server name → tool name → `{ args; structured }`: the arguments type and the
   * `structuredContent` type of each tool. Empty here; the file written by `berry-mcp typings`
   * fills it. While it is empty, every server and tool name is accepted.
   */
  interface Servers {}

  /** True while no generated server types are loaded. */
  type Untyped = [keyof Servers] extends [never] ? true : false;

  /** The server names a script may use. */
  type ServerName = Untyped extends true ? string : { [K in keyof Servers]: K }[keyof Servers] & string;

  /** The tool names of server `S`. */
  type ToolName<S extends string> = Untyped extends true ? string : S extends keyof Servers ? Extract<keyof Servers[S], string> : never;

  /** The arguments of tool `T` of server `S`. */
  type ArgumentsOf<S extends string, T extends string> = Untyped extends true
    ? Record<string, unknown>
    : S extends keyof Servers
      ? T extends keyof Servers[S]
        ? Servers[S][T] extends { args: infer A }
          ? A
          : Record<string, unknown>
        : never
      : never;

  /** The `structuredContent` of tool `T` of server `S`. */
  type StructuredContentOf<S extends string, T extends string> = Untyped extends true
    ? { [key: string]: unknown }
    : S extends keyof Servers
      ? T extends keyof Servers[S]
        ? Servers[S][T] extends { structured: infer R }
          ? R
          : { [key: string]: unknown }
        : never
      : never;

  /** `arguments` may be left out when the tool requires none. */
  type ArgumentsField<S extends string, T extends string> =
    {} extends ArgumentsOf<S, T> ? { readonly arguments?: ArgumentsOf<S, T> } : { readonly arguments: ArgumentsOf<S, T> };

  /** A `CallRequest` for tool `T` of server `S`. */
  type CallRequestFor<S extends string, T extends string> = {
    readonly server: S;
    readonly tool: T;
  } & ArgumentsField<S, T>;

  /**
   * Server name → prompt name → its arguments: filled by the file `berry-mcp typings` writes.
   * While it is empty (or has no entry for a server), any prompt name is accepted.
   */
  interface Prompts {}

  /** The prompt names of server `S`. */
  type PromptName<S extends string> = S extends keyof Prompts ? Extract<keyof Prompts[S], string> : string;

  /** The arguments of prompt `P` of server `S`. */
  type PromptArgumentsOf<S extends string, P extends string> = S extends keyof Prompts
    ? P extends keyof Prompts[S]
      ? Prompts[S][P]
      : never
    : Record<string, string | number | boolean>;

  /** A `PromptRequest` for prompt `P` of server `S`. */
  type PromptRequestFor<S extends string, P extends string> = {
    readonly server: S;
    readonly name: P;
  } & ({} extends PromptArgumentsOf<S, P> ? { readonly arguments?: PromptArgumentsOf<S, P> } : { readonly arguments: PromptArgumentsOf<S, P> });

  /** A `CallResult` whose `structuredContent` has the type of tool `T`'s output schema. */
  type CallResultFor<S extends string, T extends string> = Untyped extends true ? CallResult : CallResultWith<StructuredContentOf<S, T>>;

  // ---------------------------------------------------------------------------------------------
  // The globals' types

  interface Tools {
    /**
     * Every configured server with its status (`connected`, `disabled`, `auth_required` or `error` with a message)
     * and short tool descriptions. One broken server never hides the others.
     *
     * @example text(await tools.mcp_list({}));
     */
    mcp_list<S extends ServerName>(request?: { readonly server?: S; readonly refresh?: boolean }): Promise<ListResult>;

    /**
     * One tool's description, argument types (nested, each property's description as a comment),
     * `structuredContent` type, annotations and task support; `schemas: true` adds the raw JSON
     * Schemas. Rejects (`MCP_UNKNOWN_SERVER`, `MCP_UNKNOWN_TOOL`) with a message naming what exists.
     *
     * @example text(await tools.mcp_describe({ server: "everything", tool: "echo" }));
     */
    mcp_describe<S extends ServerName, T extends ToolName<S>>(request: {
      readonly server: S;
      readonly tool: T;
      readonly schemas?: boolean;
    }): Promise<ToolDescription>;
    /**
     * Without `tool`: the server's catalog (every tool's call signature, its resources, resource
     * templates and prompts) and its instructions.
     */
    mcp_describe<S extends ServerName>(request: { readonly server: S; readonly tool?: undefined }): Promise<ServerDescription>;
    mcp_describe<S extends ServerName>(request: { readonly server: S; readonly tool?: ToolName<S>; readonly schemas?: boolean }): Promise<DescribeResult>;

    /**
     * Call a tool. Resolves with the full MCP result (`content`, `structuredContent`, `isError`):
     * a tool that reports an error resolves with `isError: true`. Rejects only when the host
     * could not ask (unknown server, connection or protocol failure, timeout, cancellation).
     *
     * @example
     * const result = await tools.mcp_call({ server: "everything", tool: "echo", arguments: { message: "hi" } });
     * for (const block of result.content) if (block.type === "text") text(block.text);
     */
    mcp_call<S extends ServerName, T extends ToolName<S>>(request: CallRequestFor<S, T>): Promise<CallResultFor<S, T>>;

    /**
     * Read a resource (`resources/read`): its `contents`, each with `text` or base64 `blob`. The
     * URIs and templates a server publishes are in `mcp_describe({ server })`. Rejects
     * `MCP_UNKNOWN_RESOURCE` naming what exists (or saying the server publishes no resources).
     *
     * @example
     * const doc = await tools.mcp_read({ server: "everything", uri: "demo://resource/static/document/features.md" });
     * for (const c of doc.contents) if ("text" in c) text(c.text);
     */
    mcp_read<S extends ServerName>(request: { readonly server: S; readonly uri: string }): Promise<ReadResult>;

    /**
     * Get a prompt (`prompts/get`) filled with its arguments: its `messages`. Rejects
     * `MCP_UNKNOWN_PROMPT` naming the prompts that exist, `MCP_INVALID_ARGUMENT` when a required
     * argument is missing.
     *
     * @example
     * const p = await tools.mcp_prompt({ server: "everything", name: "args-prompt", arguments: { city: "Paris" } });
     */
    mcp_prompt<S extends ServerName, P extends PromptName<S>>(request: PromptRequestFor<S, P>): Promise<PromptResult>;

    /**
     * Find tools by what they do (their names, titles, descriptions and argument names), across
     * every server or one, best first, each with its server, name, one-line description and
     * TypeScript signature. Answers from saved catalogs where it can; servers that fail are left out.
     *
     * @example
     * const { tools: found } = await tools.mcp_search({ query: "write file", limit: 3 });
     */
    mcp_search<S extends ServerName>(request: { readonly query: string; readonly server?: S; readonly limit?: number }): Promise<SearchResult>;
  }
}

/** The MCP servers configured for this run, as async functions. */
declare const tools: BerryMcp.Tools;

/** Append a text output to the run: strings as they are, other values as JSON. */
declare function text(value: unknown): void;

/**
 * Append an image output to the run: an MCP image block as `mcp_call` returns it, or
 * `{ data, mimeType }` (`type: "image"` may be left out). Throws on a bad block.
 */
declare function image(block: BerryMcp.ImageInput): void;

/**
 * Keep a JSON value under `key` for the later runs of the same conversation (the state the
 * embedder passes to `host.run`; in `serve`, the session or the state id a run's result carries).
 * The value is copied as JSON when stored; `store(key, undefined)` deletes the key. Sizes are
 * bounded, per value and in all: past them `store` throws (`SCRIPT_STATE_LIMIT`).
 *
 * @example store("files", list); // and in a later run: const list = load("files") as string[];
 */
declare function store(key: string, value: unknown): void;

/** The value `store` kept under `key` in this run or an earlier one of the conversation (a JSON copy), or `undefined`. */
declare function load(key: string): unknown;

/** The script's log (collected in the run record, not an output). */
interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
}

declare var console: Console;
