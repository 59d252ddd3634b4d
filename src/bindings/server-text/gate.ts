/**
 * The one gate for what servers say, on its way out to a script, a client, a log or a file: masked
 * (every configured secret, in every rendering), bounded (limits.ts) and checked for shape.
 * - results, resources, prompts, catalogs: `value` (host.ts, on every operation's answer);
 * - progress: `progress` (dropped or normalized when malformed, never thrown);
 * - elicitations and `input_required` questions: `elicitation`, `questions`;
 * - log lines, stderr tails and server messages in errors: `logLine`, `piece`, `error`;
 * - observed result types: their keys, through `whole` (catalog/observed-types/).
 * One per loaded config (`gateOf`); a connection's (`followingGate`) follows its host's latest
 * config and adds the connection's own OAuth tokens.
 */
import { createRedactor, noRedaction, secretsOfServers, valueRedactorOf, type ServerSlot, type ValueRedactor } from '../../config/index.js';
import { BerryError, isBerryError } from '../../common/errors.js';
import type { ProgressEvent } from '../contract.js';
import { clip, maskWithin, type Mask } from './bound.js';
import { gateElicitation, type GatedElicitation } from './elicitation-text.js';
import { MAX_LOG_LINE_CHARS, MAX_QUESTIONS_PER_ROUND } from './limits.js';
import { progressEvent } from './progress.js';

export type { GatedElicitation, Mask };

/** A whole text and a piece of a stream, masked (see ServerTextGate.whole and .piece). */
export interface TextMasks {
  readonly whole: Mask;
  readonly piece: Mask;
}

/** One log event's message at most, all lines together. */
const MAX_LOG_EVENT_CHARS = 8 * MAX_LOG_LINE_CHARS;

export class ServerTextGate {
  /** Whole values a server returns: the secrets that can be told from data (maskedInValues), keys too; noRedaction when none. */
  readonly value: ValueRedactor;
  readonly #masks: () => TextMasks;

  /** `masks` is asked each time a text passes (its regular expressions are built when first needed). */
  constructor(value: ValueRedactor, masks: () => TextMasks) {
    this.value = value;
    this.#masks = masks;
  }

  /** A whole text (a message, a title, a key, an error): every configured secret, in every rendering. */
  whole(text: string): string {
    return this.#masks().whole(text);
  }

  /**
   * A piece of a stream (a progress message, a log line, a stderr tail): also a start that is a
   * secret's end and an end that is a secret's start, so a secret split across two pieces is masked.
   */
  piece(text: string): string {
    return this.#masks().piece(text);
  }

  /** A progress notification's params as an event for `onProgress`, or undefined to drop it. */
  progress(server: string, tool: string, raw: unknown): ProgressEvent | undefined {
    return progressEvent(server, tool, raw, this.#masks().piece);
  }

  /** An elicitation as it may be shown, or why it is declined unshown. */
  elicitation(params: unknown): GatedElicitation {
    return gateElicitation(params, this.#masks().whole);
  }

  /** A log event's message: masked, each line cut to MAX_LOG_LINE_CHARS. */
  logLine(text: string): string {
    const masked = maskWithin(text, MAX_LOG_EVENT_CHARS, this.#masks().piece);
    if (masked.length <= MAX_LOG_LINE_CHARS) return masked;
    return masked
      .split('\n')
      .map((line) => clip(line, MAX_LOG_LINE_CHARS))
      .join('\n');
  }

  /** An operation's error, its message masked as a value (it may quote a server's schema, tool names, stderr). */
  error(error: unknown, server: string): unknown {
    if (this.value === noRedaction || !isBerryError(error)) return error;
    const message = this.value(error.message, server);
    if (message !== error.message) error.message = message;
    return error;
  }

  /** Throws MCP_INPUT_UNSUPPORTED, nothing asked, when one round of input asks more than MAX_QUESTIONS_PER_ROUND questions. */
  questions(server: string, count: number): void {
    if (count <= MAX_QUESTIONS_PER_ROUND) return;
    throw new BerryError(
      'MCP_INPUT_UNSUPPORTED',
      `Server "${server}" asked ${count.toLocaleString('en-US')} questions in one round of input; at most ${MAX_QUESTIONS_PER_ROUND} are put to the user, so none was asked and the call failed.`,
    );
  }
}

/** Masks of these secrets, built when first used. */
export function masksOf(secrets: readonly string[]): () => TextMasks {
  let masks: TextMasks | undefined;
  return () => (masks ??= { whole: createRedactor(secrets, { fragments: false }), piece: createRedactor(secrets) });
}

/** The gate of a config without secrets: shapes checked and texts bounded, nothing to mask. */
export const OPEN_GATE = new ServerTextGate(noRedaction, masksOf([]));

const gates = new WeakMap<readonly ServerSlot[], ServerTextGate>();

/** The gate of one loaded config's servers: any server may say any other's secret (they share the environment). */
export function gateOf(servers: readonly ServerSlot[]): ServerTextGate {
  let gate = gates.get(servers);
  if (gate === undefined) {
    const masks = masksOf(secretsOfServers(servers));
    gates.set(servers, (gate = new ServerTextGate(valueRedactorOf(servers), masks)));
  }
  return gate;
}

/** A connection's gate: `latest`'s (the config its host read last), then `own` (the connection's OAuth tokens). */
export function followingGate(latest: () => ServerTextGate, own?: Mask): ServerTextGate {
  let followed: ServerTextGate | undefined;
  let masks: TextMasks | undefined;
  const current = (): TextMasks => {
    const gate = latest();
    // Made again only when the config changed: progress and log lines may come by the thousand.
    if (gate !== followed || masks === undefined) {
      followed = gate;
      masks =
        own === undefined
          ? { whole: (t) => gate.whole(t), piece: (t) => gate.piece(t) }
          : { whole: (t) => own(gate.whole(t)), piece: (t) => own(gate.piece(t)) };
    }
    return masks;
  };
  return new ServerTextGate((value, server) => latest().value(value, server), current);
}
