/** V8's longest string (0x1fffffe8 chars on 64-bit): one line must be decodable into one string. */
export const MAX_LINE_LIMIT = 0x1fffffe8;

/** Thrown by `LineReader.push` once the pending line passes the limit; the reader is spent then. */
export class LineTooLongError extends Error {
  /** Bytes of the line seen so far (it may be longer still: its end was never read). */
  readonly bytes: number;
  readonly limitBytes: number;

  constructor(bytes: number, limitBytes: number) {
    super(`a line of at least ${bytes} bytes exceeds the limit of ${limitBytes} bytes`);
    this.bytes = bytes;
    this.limitBytes = limitBytes;
  }
}

/**
 * Splits a byte stream into UTF-8 lines of at most `limitBytes` (newline excluded). Each byte is
 * scanned once and each line is joined once, so a 100 MB line in 64 KB chunks costs linear time,
 * unlike concatenating the buffer on every chunk.
 */
export class LineReader {
  readonly #limitBytes: number;
  #chunks: Buffer[] = [];
  #pending = 0;
  #since = 0;
  #failed = false;

  constructor(limitBytes: number) {
    if (!Number.isInteger(limitBytes) || limitBytes < 1 || limitBytes > MAX_LINE_LIMIT) {
      throw new RangeError(`line limit must be an integer from 1 to ${MAX_LINE_LIMIT} bytes, got ${String(limitBytes)}`);
    }
    this.#limitBytes = limitBytes;
  }

  /** Bytes waiting for their newline. */
  get pendingBytes(): number {
    return this.#pending;
  }

  /** When the line now pending began (Date.now()), if one is. */
  get pendingSince(): number | undefined {
    return this.#pending > 0 ? this.#since : undefined;
  }

  /**
   * Feeds a chunk and calls `onLine` for every line it completes (a trailing `\r` is dropped).
   * Throws LineTooLongError as soon as a line passes the limit, before buffering more of it.
   */
  push(chunk: Buffer, onLine: (line: string) => void): void {
    if (this.#failed) return;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, newline);
      this.#check(this.#pending + part.length);
      let line: Buffer;
      if (this.#chunks.length === 0) {
        line = part;
      } else {
        this.#chunks.push(part);
        line = Buffer.concat(this.#chunks, this.#pending + part.length);
        this.#chunks = [];
      }
      this.#pending = 0;
      const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
      onLine(line.toString('utf8', 0, end));
      start = newline + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#check(this.#pending + rest.length);
      if (this.#pending === 0) this.#since = Date.now();
      this.#chunks.push(rest);
      this.#pending += rest.length;
    }
  }

  #check(size: number): void {
    if (size <= this.#limitBytes) return;
    this.#failed = true;
    this.clear();
    throw new LineTooLongError(size, this.#limitBytes);
  }

  /** Drops whatever partial line is held. */
  clear(): void {
    this.#chunks = [];
    this.#pending = 0;
  }
}
