/**
 * The progress notifications of one `run`: `progress` counts up from 1 with each one sent, and at
 * most one goes out per `intervalMs` (a script calling text() in a loop must not flood the client);
 * a message that arrives too soon waits, replaced by any later one, and is sent at the latest when
 * the run ends, before its result.
 */
export class ProgressReporter {
  readonly #send: (progress: number, message: string) => void;
  readonly #intervalMs: number;
  #sent = 0;
  #lastAt = Number.NEGATIVE_INFINITY;
  #pending: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(send: (progress: number, message: string) => void, intervalMs = 50) {
    this.#send = send;
    this.#intervalMs = intervalMs;
  }

  report(message: string): void {
    if (this.#closed) return;
    const wait = this.#lastAt + this.#intervalMs - performance.now();
    if (wait <= 0 && this.#timer === undefined) {
      this.#emit(message);
      return;
    }
    this.#pending = message;
    this.#timer ??= setTimeout(() => this.flush(), Math.max(0, wait));
  }

  /** Sends what waits now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const message = this.#pending;
    this.#pending = undefined;
    if (message !== undefined) this.#emit(message);
  }

  /** Flushes and stops: nothing is sent after the run's result. */
  close(): void {
    this.flush();
    this.#closed = true;
  }

  #emit(message: string): void {
    this.#lastAt = performance.now();
    this.#send(++this.#sent, message);
  }
}
