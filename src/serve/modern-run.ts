import { createHash, randomBytes } from 'node:crypto';
import { createRequestStateCodec, type CallToolResult, type InputRequests, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import type { ElicitationParams, ElicitationResult } from '../bindings/handlers.js';
import type { RunClient } from './queue.js';

/** What a 2026 `input_required` result carries back to us on the retry, sealed (HMAC) by this process. */
export interface ParkedState {
  readonly run: string;
  readonly args: string;
}

/** Questions one input_required result carries at most (a script may ask many at once); the rest wait for the next round. */
export const MAX_QUESTIONS_PER_ROUND = 16;
/** How long a finished run's result waits for a retry that has not come yet (the client was answering a question). */
const UNCLAIMED_RESULT_MS = 60_000;

/**
 * One 2026-07-28 `run`: its script keeps executing in this process while its client answers
 * questions between `tools/call` legs. A downstream server's elicitation (or a --confirm-writes
 * question) parks here; the leg in flight answers `input_required` with every question waiting,
 * and the client's retry (same arguments, `inputResponses`, the sealed `requestState`) delivers
 * the answers and waits for the result or the next questions. Closing a leg's stream (HTTP) or
 * cancelling it (stdio) cancels the run.
 */
export class ModernRun {
  readonly id = randomBytes(16).toString('base64url');
  readonly args: string;
  /** Whose run it is: only a request of the same client (token holder) may answer it. */
  readonly client: RunClient;
  readonly controller = new AbortController();
  readonly #asks = new Map<string, { readonly params: ElicitationParams; readonly resolve: (result: ElicitationResult) => void }>();
  readonly #wakers = new Set<() => void>();
  #asked = 0;
  #outcome: CallToolResult | undefined;
  #leg: ServerContext | undefined;

  constructor(args: unknown, client: RunClient) {
    this.args = argumentsKey(args);
    this.client = client;
  }

  /** The leg answering now (progress goes on its stream, with its token). */
  get leg(): ServerContext | undefined {
    return this.#leg;
  }

  /** The run's ElicitationTarget.ask: waits until a leg has carried the question and its retry the answer. */
  ask(params: ElicitationParams, signal: AbortSignal): Promise<ElicitationResult> {
    return new Promise((resolve) => {
      const key = `q${++this.#asked}`;
      this.#asks.set(key, { params: withoutElicitationId(params), resolve });
      signal.addEventListener('abort', () => this.#asks.delete(key) && resolve({ action: 'cancel' }), { once: true });
      this.#wake();
    });
  }

  finish(result: CallToolResult): void {
    this.#outcome = result;
    this.#wake();
  }

  get finished(): boolean {
    return this.#outcome !== undefined;
  }

  /** Hands the client's answers to the questions they answer; a question left unanswered is asked again. */
  answer(responses: Record<string, unknown> | undefined): void {
    for (const [key, value] of Object.entries(responses ?? {})) {
      const ask = this.#asks.get(key);
      if (ask === undefined || !isElicitResult(value)) continue;
      this.#asks.delete(key);
      ask.resolve(value);
    }
  }

  /** Serves one leg: the run's result, or the questions waiting (an input_required result's `inputRequests`). */
  async serve(ctx: ServerContext): Promise<{ readonly result: CallToolResult } | { readonly inputRequests: InputRequests }> {
    this.#leg = ctx;
    const cancel = (): void => this.controller.abort();
    ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        if (this.#outcome !== undefined) return { result: this.#outcome };
        if (this.#asks.size > 0) {
          const inputRequests: InputRequests = {};
          for (const [key, ask] of [...this.#asks].slice(0, MAX_QUESTIONS_PER_ROUND)) {
            inputRequests[key] = { method: 'elicitation/create', params: ask.params } as InputRequests[string];
          }
          return { inputRequests };
        }
        if (ctx.mcpReq.signal.aborted) throw new Error('the client cancelled the run');
        await new Promise<void>((resolve) => {
          this.#wakers.add(resolve);
          ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', cancel);
      if (this.#leg === ctx) this.#leg = undefined;
    }
  }

  #wake(): void {
    const wakers = [...this.#wakers];
    this.#wakers.clear();
    for (const wake of wakers) wake();
  }
}

/** This process's 2026 runs by id, and the seal on the requestState that names them. */
export class ParkedRuns {
  readonly codec: RequestStateCodec<ParkedState>;
  readonly #runs = new Map<string, ModernRun>();

  constructor(ttlSeconds: number) {
    // A key of this process only: a retry that reaches another replica fails verification (-32602), cleanly.
    this.codec = createRequestStateCodec<ParkedState>({ key: randomBytes(32), ttlSeconds, bind: (ctx) => ctx.mcpReq.method });
  }

  add(run: ModernRun): void {
    this.#runs.set(run.id, run);
  }

  /** The run a verified state names, when it is still here, is `client`'s, and the retry repeats its arguments. */
  find(state: ParkedState, args: unknown, client: RunClient): ModernRun | undefined {
    const run = this.#runs.get(state.run);
    return run !== undefined && run.client === client && run.args === state.args && run.args === argumentsKey(args) ? run : undefined;
  }

  /** Forgets `run` once its result has gone out (or nobody came for it). */
  settle(run: ModernRun, delivered: boolean): void {
    if (delivered) {
      this.#runs.delete(run.id);
      return;
    }
    setTimeout(() => this.#runs.delete(run.id), UNCLAIMED_RESULT_MS).unref();
  }

  /** Aborts every run still here (serve is stopping). */
  abortAll(): void {
    for (const run of this.#runs.values()) run.controller.abort();
  }
}

function argumentsKey(args: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(args ?? null))
    .digest('base64url');
}

function isElicitResult(value: unknown): value is ElicitationResult {
  if (typeof value !== 'object' || value === null) return false;
  const { action, content } = value as { action?: unknown; content?: unknown };
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return false;
  return content === undefined || (typeof content === 'object' && content !== null && !Array.isArray(content));
}

/** 2026-07-28's URL-mode elicitation has no elicitationId: correlation is the retry's requestState. */
function withoutElicitationId(params: ElicitationParams): ElicitationParams {
  if (params.mode !== 'url' || !('elicitationId' in params)) return params;
  const { elicitationId: _dropped, ...rest } = params;
  return rest as typeof params;
}
