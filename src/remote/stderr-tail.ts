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

  /** The kept text, cut at a line start when the tail was truncated. */
  text(): string {
    let buffer = Buffer.concat(this.#chunks);
    if (buffer.length > this.#limitBytes) buffer = buffer.subarray(buffer.length - this.#limitBytes);
    let text = buffer.toString('utf8');
    if (this.#size > this.#limitBytes) {
      const newline = text.indexOf('\n');
      if (newline !== -1 && newline < text.length - 1) text = text.slice(newline + 1);
    }
    return text.trimEnd();
  }
}
