/**
 * What an approval shows of a call, the same on every face (terminal, serve's elicitation): every
 * argument the call will send, nested keys too, sorted; a long string (key or value) shortened in
 * the middle with its length; control, bidi and invisible characters escaped. Nothing can hide
 * after a cut: a call whose rendering does not fit the face's limit is not shown, and declined.
 */
import type { ApprovalRequest } from './approval.js';

/** Strings longer than this are shown as their start and end around their length. */
export const SHOWN_STRING_CHARS = 160;
const EDGE_CHARS = 60;
/** The least one member takes: `"": 0, `. */
const MIN_MEMBER_CHARS = 7;
/** Arguments nesting deeper than this are not shown (declined): nobody reads them there. */
export const MAX_SHOWN_DEPTH = 32;

export type ApprovalView =
  | {
      readonly ok: true;
      /** `server/tool`, escaped. */
      readonly title: string;
      /** `arguments:` with one line per top-level argument, then `annotations: …`. */
      readonly body: string;
    }
  | { readonly ok: false; readonly reason: string };

// JSON.stringify escapes C0 controls, quotes and lone surrogates; these would still render
// invisibly or reorder text: DEL and C1, soft hyphen, bidi marks and isolates, zero-width
// characters, line and paragraph separators, the BOM.
const UNSEEN = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const escapeUnseen = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Thrown inside the walk when the rendering outgrows the limit or the depth. */
class Unshowable extends Error {}

/** Characters left: every piece of the rendering is charged as it is built, so a huge value stops early. */
class Budget {
  #left: number;
  readonly #max: number;
  constructor(max: number) {
    this.#left = max;
    this.#max = max;
  }
  take(text: string, extra = 0): string {
    this.#left -= text.length + extra;
    if (this.#left < 0) throw new Unshowable(`more than ${this.#max.toLocaleString('en-US')} characters`);
    return text;
  }
  /** Fails now when `n` more characters cannot fit (before sorting a million keys). */
  need(n: number): void {
    if (n > this.#left) throw new Unshowable(`more than ${this.#max.toLocaleString('en-US')} characters`);
  }
}

/**
 * The approval text of `request` within `maxChars` (title and body together), or why it cannot be
 * shown: the caller must then decline the call, never approve it unseen.
 */
export function showApproval(request: ApprovalRequest, maxChars: number): ApprovalView {
  const budget = new Budget(maxChars);
  try {
    const title = budget.take(visible(`${request.server}/${request.tool}`));
    // Exactly what goes on the wire: JSON drops undefined members and applies toJSON.
    const sent = JSON.parse(JSON.stringify(request.arguments) ?? '{}') as Record<string, unknown>;
    const keys = Object.keys(sent);
    budget.need(keys.length * MIN_MEMBER_CHARS);
    keys.sort();
    const lines = [budget.take(keys.length === 0 ? 'arguments: none' : `arguments (${keys.length}):`)];
    for (const key of keys) lines.push(budget.take(`  ${quoted(key)}: `, 1) + render(sent[key], 1, budget));
    if (request.annotations === undefined) lines.push(budget.take('annotations: none (the server does not say it only reads)'));
    else lines.push(budget.take('annotations: ') + render(JSON.parse(JSON.stringify(request.annotations)) as unknown, 1, budget));
    return { ok: true, title, body: lines.join('\n') };
  } catch (error) {
    if (!(error instanceof Unshowable)) throw error;
    return {
      ok: false,
      reason: `its arguments cannot be shown in full for approval (${error.message}, even with long strings shortened), so it was declined without asking. Send fewer or flatter arguments`,
    };
  }
}

/** Compact JSON with sorted keys and shortened strings, charged to the budget as it is built. */
function render(value: unknown, depth: number, budget: Budget): string {
  if (value === null || typeof value !== 'object') return budget.take(typeof value === 'string' ? quoted(value) : String(JSON.stringify(value)));
  if (depth > MAX_SHOWN_DEPTH) throw new Unshowable(`nested deeper than ${MAX_SHOWN_DEPTH} levels`);
  const parts: string[] = [];
  // Brackets and the ", " between parts are charged too.
  budget.take('', 2);
  if (Array.isArray(value)) {
    for (const item of value) {
      budget.take('', 2);
      parts.push(render(item, depth + 1, budget));
    }
    return `[${parts.join(', ')}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  budget.need(keys.length * MIN_MEMBER_CHARS);
  for (const key of keys.sort()) parts.push(budget.take(`${quoted(key)}: `, 2) + render(record[key], depth + 1, budget));
  return `{${parts.join(', ')}}`;
}

/** A string as a JSON literal with nothing invisible, shortened in the middle when long. */
function quoted(text: string): string {
  if (text.length <= SHOWN_STRING_CHARS) return literal(text);
  // Never cut a surrogate pair in half.
  let head = EDGE_CHARS;
  if (isHighSurrogate(text.charCodeAt(head - 1))) head--;
  let tail = text.length - EDGE_CHARS;
  if (isHighSurrogate(text.charCodeAt(tail - 1))) tail++;
  // The marker sits outside the quotes: no string can contain it unescaped, so it cannot be faked.
  return `${literal(text.slice(0, head))}…(${text.length.toLocaleString('en-US')} chars)…${literal(text.slice(tail))}`;
}

function literal(text: string): string {
  return JSON.stringify(text).replace(UNSEEN, escapeUnseen);
}

/** Text shown bare (the tool's name): escaped like a literal, without the quotes unless shortened. */
function visible(text: string): string {
  return text.length <= SHOWN_STRING_CHARS ? literal(text).slice(1, -1) : quoted(text);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
