/** Keeps the last `limitBytes` of a stream's text, so a chatty process never grows memory. */
export class TailBuffer {
  readonly #limitBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  push(chunk: Buffer): void {
    if (chunk.length >= this.#limitBytes) {
      this.#chunks = [chunk.subarray(chunk.length - this.#limitBytes)];
      this.#size = this.#limitBytes;
      return;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size - (this.#chunks[0]?.length ?? 0) >= this.#limitBytes) {
      this.#size -= this.#chunks.shift()?.length ?? 0;
    }
  }

  /**
   * The kept text, cut at a line start when the tail was truncated, and never in the middle of a
   * character. It may still start inside a secret when no line starts in it: the redactor masks
   * such a fragment (see createRedactor).
   */
  text(): string {
    let buffer = Buffer.concat(this.#chunks);
    if (buffer.length > this.#limitBytes) buffer = buffer.subarray(buffer.length - this.#limitBytes);
    let start = 0;
    // UTF-8 continuation bytes (10xxxxxx) belong to a character cut off in front.
    while (this.#size > this.#limitBytes && start < 3 && start < buffer.length && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;
    let text = buffer.subarray(start).toString('utf8');
    if (this.#size > this.#limitBytes) {
      const newline = text.indexOf('\n');
      if (newline !== -1 && newline < text.length - 1) text = text.slice(newline + 1);
    }
    return text.trimEnd();
  }
}
