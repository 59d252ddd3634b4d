import { Buffer } from 'node:buffer';
import type { RunEntry, RunLog, RunLogLevel, RunOutput } from './types.js';

const LEVELS: ReadonlySet<string> = new Set<RunLogLevel>(['log', 'info', 'warn', 'error', 'debug']);
export const IMAGE_MIME_TYPE = /^image\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
export const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What `accept` returns once the budget is spent: the sandbox then stops sending. */
export const BUDGET_SPENT = -1;
/** What every entry costs besides its bytes, so that empty entries are not free. */
export const ENTRY_OVERHEAD_BYTES = 64;
/** Most entries (outputs and logs together) a run keeps, the truncation notice included. */
export const MAX_ENTRIES = 10_000;

const encoder = new TextEncoder();

/**
 * Collects a run's text outputs, images and logs under one byte budget (UTF-8 of texts, base64
 * data and mimeType of images, plus ENTRY_OVERHEAD_BYTES per entry) and at most MAX_ENTRIES
 * entries. The entry that crosses the budget keeps what fits, followed by one truncation notice;
 * everything after it is dropped.
 */
export class OutputCollector {
  readonly outputs: RunOutput[] = [];
  readonly logs: RunLog[] = [];
  readonly #limit: number;
  readonly #listener: ((entry: RunEntry) => void) | undefined;
  #remaining: number;
  #spent = false;
  #sealed = false;

  constructor(limitBytes: number, listener?: (entry: RunEntry) => void) {
    this.#limit = limitBytes;
    this.#listener = listener;
    this.#remaining = limitBytes;
  }

  get notice(): string {
    return `[output truncated: limit of ${this.#limit} bytes reached]`;
  }

  get #countNotice(): string {
    return `[output truncated: limit of ${MAX_ENTRIES} entries reached]`;
  }

  /**
   * Receives one entry from the sandbox: kind is 'text', 'image' or a log level. Returns the bytes
   * still free, or BUDGET_SPENT. Values are checked again here: the sandbox is not trusted.
   */
  accept(kind: unknown, text: unknown, mimeType?: unknown): number {
    if (this.#spent || this.#sealed || typeof text !== 'string') return this.#state();
    const outputs = this.outputs.length;
    const logs = this.logs.length;
    if (outputs + logs >= MAX_ENTRIES - 1 && (kind === 'text' || kind === 'image' || LEVELS.has(kind as string))) {
      // The last slot is the notice's.
      this.#spent = true;
      this.#remaining = 0;
      if (kind === 'text' || kind === 'image') this.outputs.push({ type: 'text', text: this.#countNotice });
      else this.logs.push({ level: kind as RunLogLevel, text: this.#countNotice });
    } else if (kind === 'text') {
      this.outputs.push({ type: 'text', text: this.#fit(text) });
    } else if (kind === 'image') {
      this.#image(text, mimeType);
    } else if (typeof kind === 'string' && LEVELS.has(kind)) {
      this.logs.push({ level: kind as RunLogLevel, text: this.#fit(text) });
    }
    if (this.#listener) this.#notify(outputs, logs);
    return this.#state();
  }

  /** Hands what `accept` just added to the listener; a throwing listener never breaks the run. */
  #notify(outputs: number, logs: number): void {
    try {
      for (const output of this.outputs.slice(outputs)) this.#listener?.({ kind: 'output', output });
      for (const log of this.logs.slice(logs)) this.#listener?.({ kind: 'log', log });
    } catch {
      // The listener is the embedder's; its failure is not the script's.
    }
  }

  /** Entries arriving after the run ended are ignored. */
  seal(): void {
    this.#sealed = true;
  }

  #image(data: string, mimeType: unknown): void {
    if (typeof mimeType !== 'string') return;
    // Size first: the sandbox cuts data that cannot fit, which then is no longer valid base64.
    const bytes = data.length + mimeType.length + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.#remaining) {
      this.#spent = true;
      this.#remaining = 0;
      this.outputs.push({ type: 'text', text: this.notice });
    } else if (!IMAGE_MIME_TYPE.test(mimeType) || data.length % 4 !== 0 || !BASE64.test(data)) {
      this.outputs.push({ type: 'text', text: '[image dropped: not a valid base64 image block]' });
    } else {
      this.#remaining -= bytes;
      this.outputs.push({ type: 'image', data, mimeType });
    }
  }

  /** The text to keep: all of it, or what fits followed by the notice. */
  #fit(text: string): string {
    const bytes = Buffer.byteLength(text, 'utf8') + ENTRY_OVERHEAD_BYTES;
    if (bytes <= this.#remaining) {
      this.#remaining -= bytes;
      return text;
    }
    this.#spent = true;
    const room = new Uint8Array(Math.max(0, this.#remaining - ENTRY_OVERHEAD_BYTES));
    // encodeInto writes whole characters only, so the prefix never ends in half a character.
    const { read } = encoder.encodeInto(text, room);
    this.#remaining = 0;
    return read > 0 ? `${text.slice(0, read)}\n${this.notice}` : this.notice;
  }

  #state(): number {
    return this.#spent ? BUDGET_SPENT : this.#remaining;
  }
}
