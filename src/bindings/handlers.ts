/** Callbacks through which servers' own requests reach the embedder (not part of the script contract). */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';

/** The params of an `elicitation/create` request, as the MCP spec defines them (form or URL mode). */
export type ElicitationParams = ElicitRequest['params'];

/** The answer to an elicitation: `accept` (with `content` for a form), `decline` or `cancel`. */
export type ElicitationResult = ElicitResult;

/** Answers a server's `elicitation/create`; `signal` aborts when the server's request is cancelled. */
export type ElicitationHandler = (params: ElicitationParams, context: { readonly server: string; readonly signal: AbortSignal }) => Promise<ElicitationResult>;
