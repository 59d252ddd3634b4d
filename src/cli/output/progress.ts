import type { Writable } from 'node:stream';
import { terminalSafe } from './terminal-safe.js';

const BAR = 20;

type Tty = Writable & { isTTY?: boolean; columns?: number };

interface Line {
  label: string;
  progress: number;
  total: number | undefined;
  message: string | undefined;
}

/**
 * One labelled progress line per call in flight (`server/tool [####....] 45% message`), drawn at
 * the bottom of a terminal and redrawn in place; a no-op when the stream is not a TTY, so logs and
 * pipes stay clean. Anything else written to the terminal goes through `print`, above the lines.
 */
export class ProgressLines {
  readonly #stream: Tty;
  readonly #lines = new Map<number | string, Line>();
  #drawn = 0;

  constructor(stream: Tty) {
    this.#stream = stream;
  }

  get #active(): boolean {
    return this.#stream.isTTY === true;
  }

  update(id: number | string, label: string, progress: number, total?: number, message?: string): void {
    if (!this.#active) return;
    this.#lines.set(id, { label, progress, total, message });
    this.#redraw();
  }

  /** The call ended: its line goes. */
  remove(id: number | string): void {
    if (!this.#lines.delete(id) || !this.#active) return;
    this.#redraw();
  }

  /** Writes text to `out` (the terminal's stdout or stderr) above the progress lines. */
  print(out: Writable, text: string): void {
    if (this.#drawn === 0) {
      out.write(text);
      return;
    }
    this.#erase();
    out.write(text);
    this.#draw();
  }

  /** Erases every line (the command is done). */
  clear(): void {
    this.#lines.clear();
    if (this.#drawn > 0) this.#erase();
  }

  #redraw(): void {
    this.#erase();
    this.#draw();
  }

  #erase(): void {
    if (this.#drawn === 0) return;
    // Up to the first line we drew, then clear to the end of the screen.
    this.#stream.write(`\r${this.#drawn > 1 ? `\x1b[${this.#drawn - 1}A` : ''}\x1b[J`);
    this.#drawn = 0;
  }

  #draw(): void {
    if (this.#lines.size === 0) return;
    const width = Math.max(20, (this.#stream.columns || 80) - 1);
    const text = [...this.#lines.values()].map((line) => render(line).slice(0, width)).join('\n');
    this.#stream.write(text);
    this.#drawn = this.#lines.size;
  }
}

function render(line: Line): string {
  let bar: string;
  if (line.total !== undefined && line.total > 0) {
    const ratio = Math.min(1, Math.max(0, line.progress / line.total));
    const filled = Math.round(ratio * BAR);
    bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${Math.round(ratio * 100)}%`;
  } else {
    bar = `[${line.progress}]`;
  }
  // Servers choose labels and messages: one line, and no control character reaches the terminal.
  return terminalSafe(`${line.label} ${bar}${line.message ? ` ${line.message}` : ''}`.replace(/\s+/g, ' '));
}
