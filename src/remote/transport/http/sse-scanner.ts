/**
 * Follows a text/event-stream as it passes by, for what resumption needs: the last event id, the
 * server's `retry` delay, and each event's data. Linear in the input: a line is joined only once.
 */
export class SseScanner {
  /** Id of the last dispatched event (the `Last-Event-ID` to resume from). */
  lastEventId: string | undefined;
  /** The server's reconnection delay (`retry:`), in ms. */
  retryMs: number | undefined;
  readonly #onData: (data: string) => void;
  #decoder = new TextDecoder();
  #partial: string[] = [];
  #pendingCr = false;
  #idBuffer: string | undefined;
  #data: string[] = [];
  #hasData = false;

  constructor(onData: (data: string) => void) {
    this.#onData = onData;
  }

  push(chunk: Uint8Array): void {
    this.#text(this.#decoder.decode(chunk, { stream: true }));
  }

  /** A new stream starts: forget any half-read line or event of the previous one. */
  reset(): void {
    this.#decoder = new TextDecoder();
    this.#partial = [];
    this.#pendingCr = false;
    this.#data = [];
    this.#hasData = false;
  }

  #text(text: string): void {
    let start = 0;
    // "\r\n" split across chunks: the "\n" ends nothing new.
    if (this.#pendingCr && text.startsWith('\n')) start = 1;
    this.#pendingCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#partial.push(text.slice(start, i));
      this.#line(this.#partial.join(''));
      this.#partial = [];
      if (c === 13) {
        if (i + 1 === text.length) this.#pendingCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    if (start < text.length) this.#partial.push(text.slice(start));
  }

  #line(line: string): void {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.#data.push(value);
      this.#hasData = true;
    } else if (field === 'id') {
      if (!value.includes('\0')) this.#idBuffer = value;
    } else if (field === 'retry') {
      if (/^\d+$/.test(value)) this.retryMs = Number(value);
    }
  }

  #dispatch(): void {
    if (this.#idBuffer !== undefined) this.lastEventId = this.#idBuffer;
    if (this.#hasData) {
      const data = this.#data.join('\n');
      this.#data = [];
      this.#hasData = false;
      if (data !== '') this.#onData(data);
    }
  }
}
