/**
 * The states of 2026-07-28 runs: a run without `state` gets a new one under a new id; a run with
 * one gets it back when its holder made it; either way its result carries the id
 * (`structuredContent.state`), and the state is kept (StateStore) until it has been idle too long.
 */
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isBerryError } from '../../common/errors.js';
import { StateValues } from '../../runtime/index.js';
import type { StateStore } from './state-store.js';

/** 32 random bytes, base64url: 256 bits nobody guesses. */
const STATE_ID = /^[A-Za-z0-9_-]{43}$/;

export interface OpenState {
  readonly id: string;
  readonly state: StateValues;
  /** Made for this run (no `state` given). */
  readonly fresh: boolean;
}

export class ModernStates {
  readonly store: StateStore;

  constructor(store: StateStore) {
    this.store = store;
  }

  /** The run's state, or the result that refuses the run (SERVE_STATE_UNKNOWN: the same for an id unknown, expired, or another holder's). */
  async open(id: string | undefined, owner: string): Promise<OpenState | CallToolResult> {
    if (id === undefined) return { id: randomBytes(32).toString('base64url'), state: new StateValues(), fresh: true };
    let state: StateValues | undefined;
    try {
      state = STATE_ID.test(id) ? await this.store.get(id, owner) : undefined;
    } catch (error) {
      // The shared store did not answer: the run does not start without its state.
      if (!isBerryError(error)) throw error;
      return refusal(error.message, error.code);
    }
    return state === undefined ? unknownState() : { id, state, fresh: false };
  }

  /** Keeps the state after its run, and puts its id in the run's result (and a line for clients that show the model only the text). */
  async keep(open: OpenState, owner: string, result: CallToolResult): Promise<CallToolResult> {
    // A run that used neither store() nor load() never touches a shared store (and gets no id).
    if (open.fresh && open.state.size === 0 && this.store.lazy === true) return result;
    try {
      await this.store.put(open.id, owner, open.state);
    } catch (error) {
      if (!isBerryError(error)) throw error;
      // The run itself happened (its calls too): not an error to retry, but said where a client reads it.
      const text = `The run's state was not kept, so the next run cannot load() it: ${error.message} [${error.code}]`;
      const structured = { ...(result.structuredContent ?? {}), stateError: { code: error.code, message: error.message } };
      return { ...result, content: [...result.content, { type: 'text', text }], structuredContent: structured };
    }
    const structured = result.structuredContent ?? { ok: false, durationMs: 0, calls: 0 };
    const content = [...result.content];
    if (open.state.size > 0) {
      content.push({ type: 'text', text: `state: ${open.id} (pass it as run's "state" argument to load() what this conversation stored)` });
    }
    return { ...result, content, structuredContent: { ...structured, state: open.id } };
  }
}

function unknownState(): CallToolResult {
  const message =
    'This state id is unknown: it expired (states are kept for a while after their last run), or it was never made for this client. ' +
    'Run again without "state" to start a new, empty one.';
  return refusal(message, 'SERVE_STATE_UNKNOWN');
}

function refusal(message: string, code: string): CallToolResult {
  return {
    content: [{ type: 'text', text: `${message} [${code}]` }],
    structuredContent: { ok: false, error: { name: 'Error', message, code }, durationMs: 0, calls: 0 },
    isError: true,
  };
}
