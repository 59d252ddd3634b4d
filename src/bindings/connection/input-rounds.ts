/**
 * Multi-round-trip requests (2026-07-28): a server that needs input answers `tools/call`,
 * `prompts/get` or `resources/read` with an `input_required` result instead of sending a request.
 * Its elicitations are answered by the caller's `onElicitation` (the same handler and CLI form as
 * a 2025 `elicitation/create`), and the request is sent again with the answers and the server's
 * `requestState` echoed unchanged, as a new request (a fresh id), for at most MAX_ROUNDS rounds.
 * Anything else it asks (sampling, roots) fails the call with MCP_INPUT_UNSUPPORTED.
 *
 * The SDK's own driver (autoFulfill) is off: it answers through one handler per client, which
 * cannot tell which caller of a shared connection a round belongs to; this loop runs in the call.
 */
import { BerryError } from '../../common/errors.js';
import { sleep } from '../../common/abort.js';
import { isJsonObject } from '../../common/json-object.js';
import type { ElicitationHandler, ElicitationParams } from '../handlers.js';
import type { LogSink } from '../log.js';
import { answerElicitation } from '../operations/elicitation.js';
import type { ServerTextGate } from '../server-text/gate.js';

/** Rounds of one request before it fails: a server that keeps asking must not hold a call forever. */
export const MAX_ROUNDS = 8;
/** A round that asks nothing (only `requestState`) is sent again after this pause, not in a spin. */
const STATE_ONLY_PAUSE_MS = 250;
const NONE = Object.freeze({});

/** What the rounds need of the connection. */
export interface RoundsTarget {
  readonly config: { readonly name: string };
  readonly client: { getProtocolEra(): 'modern' | 'legacy' | undefined };
  readonly owners: { hostHandler(): ElicitationHandler | undefined };
  readonly log: LogSink;
  readonly gate: ServerTextGate;
}

interface InputRequired {
  readonly resultType: 'input_required';
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  readonly requestState?: string;
}

/**
 * Runs `send` (which must pass its `allowInputRequired` on) until the server's answer is complete.
 * `extra` holds `inputResponses` and `requestState` for the next round (empty on the first).
 */
export async function answerInputRounds<T>(
  target: RoundsTarget,
  handler: ElicitationHandler | undefined,
  send: (extra: Record<string, unknown>, options: { allowInputRequired?: true }) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  // The 2025 era has no input_required: the request goes as it is (the warm-call path).
  if (target.client.getProtocolEra() !== 'modern') return send(NONE, NONE);
  const server = target.config.name;
  let extra: Record<string, unknown> = {};
  for (let round = 0; ; round++) {
    const result = await send(extra, { allowInputRequired: true });
    if (!isInputRequired(result)) return result;
    if (round >= MAX_ROUNDS) {
      throw new BerryError('MCP_INPUT_UNSUPPORTED', `Server "${server}" still asked for input after ${MAX_ROUNDS} rounds of answers; the call was given up.`);
    }
    const requests = isJsonObject(result.inputRequests) ? Object.entries(result.inputRequests) : [];
    // Bounded before anyone is asked: a server must not put thousands of questions to the user.
    target.gate.questions(server, requests.length);
    if (requests.length === 0) await sleep(STATE_ONLY_PAUSE_MS, signal ?? new AbortController().signal);
    const responses: Record<string, unknown> = {};
    for (const [key, request] of requests) {
      responses[key] = await answerOne(target, handler ?? target.owners.hostHandler(), key, request, signal);
    }
    extra = {
      ...(requests.length > 0 ? { inputResponses: responses } : {}),
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
    };
  }
}

async function answerOne(
  target: RoundsTarget,
  handler: ElicitationHandler | undefined,
  key: string,
  request: unknown,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const server = target.config.name;
  const { method, params } = (typeof request === 'object' && request !== null ? request : {}) as { method?: unknown; params?: unknown };
  if (method === 'elicitation/create' && typeof params === 'object' && params !== null) {
    return answerElicitation(params as ElicitationParams, { server, handler, log: target.log, gate: target.gate }, signal ?? new AbortController().signal);
  }
  const what = typeof method === 'string' ? method.slice(0, 60) : 'a request without a method';
  const why = method === 'sampling/createMessage' ? 'berry-mcp runs no model of its own' : 'berry-mcp answers only elicitation/create';
  target.log({ server, kind: 'elicitation', message: `declined input request "${key.slice(0, 60)}": ${what} (${why})` });
  throw new BerryError(
    'MCP_INPUT_UNSUPPORTED',
    `Server "${server}" needs ${what} to finish this request, which berry-mcp does not support (${why}). The call failed; nothing was answered.`,
  );
}

function isInputRequired(value: unknown): value is InputRequired {
  return typeof value === 'object' && value !== null && (value as { resultType?: unknown }).resultType === 'input_required';
}
