/** Longest piece of a stderr line held back waiting for its newline. */
const MAX_PARTIAL_LINE = 8192;

/**
 * Cuts a server's stderr into whole lines (a line longer than 8 KB comes in pieces), so that
 * redacting a secret never meets half of it.
 */
export class StderrLines {
  readonly #emit: (text: string) => void;
  #partialLine = '';

  constructor(emit: (text: string) => void) {
    this.#emit = emit;
  }

  /** Emits the complete lines in `text` (with what was held back before them). */
  push(text: string): void {
    let pending = this.#partialLine + text;
    const lastNewline = pending.lastIndexOf('\n');
    if (lastNewline !== -1) {
      this.#emit(pending.slice(0, lastNewline + 1));
      pending = pending.slice(lastNewline + 1);
    }
    while (pending.length > MAX_PARTIAL_LINE) {
      this.#emit(pending.slice(0, MAX_PARTIAL_LINE));
      pending = pending.slice(MAX_PARTIAL_LINE);
    }
    this.#partialLine = pending;
  }

  /** Emits the last, unterminated line, if any. */
  flush(): void {
    const rest = this.#partialLine;
    this.#partialLine = '';
    if (rest) this.#emit(rest);
  }
}
