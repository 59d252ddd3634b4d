import type { Writable } from 'node:stream';
import { terminalSafe } from './terminal-safe.js';

const WIDTH = 24;

/** A one-line progress bar on a TTY; a no-op elsewhere so logs and pipes stay clean. */
export class ProgressBar {
  readonly #stream: Writable & { isTTY?: boolean };
  #shown = false;

  constructor(stream: Writable & { isTTY?: boolean }) {
    this.#stream = stream;
  }

  update(label: string, progress: number, total?: number, message?: string): void {
    if (!this.#stream.isTTY) return;
    let bar: string;
    if (total !== undefined && total > 0) {
      const ratio = Math.min(1, Math.max(0, progress / total));
      const filled = Math.round(ratio * WIDTH);
      bar = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${Math.round(ratio * 100)}%`;
    } else {
      bar = `[${progress}]`;
    }
    // One line: a newline in a server's message would break the redraw.
    const line = terminalSafe(`${label} ${bar}${message ? ` ${message}` : ''}`).replace(/[\n\t]/g, ' ').slice(0, 120);
    this.#stream.write(`\r\x1b[2K${line}`);
    this.#shown = true;
  }

  clear(): void {
    if (!this.#shown) return;
    this.#stream.write('\r\x1b[2K');
    this.#shown = false;
  }
}
