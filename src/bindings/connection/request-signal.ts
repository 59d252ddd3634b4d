/**
 * The abort signal of one SDK request, without an AbortController.
 *
 * The SDK's `Protocol.request()` reads only `aborted`, `reason`, `throwIfAborted()` and
 * `addEventListener('abort', …)` of the signal it is given (and never removes its listener). A real
 * AbortController with its EventTarget costs ≈ 10 µs to set up, most of berry-mcp's overhead over a
 * raw call on a warm connection; this object is just those members. test/bindings/request-signal
 * checks that the SDK still cancels through it (notifications/cancelled reaches the server).
 */
export class RequestSignal {
  aborted = false;
  reason: unknown = undefined;
  #listeners: (() => void)[] = [];

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: () => void): void {
    if (type !== 'abort') return;
    if (this.aborted) return;
    this.#listeners.push(listener);
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.#listeners = this.#listeners.filter((l) => l !== listener);
  }

  /** Aborts once: sets `reason` and runs the listeners (the SDK's cancel: notifications/cancelled). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }

  /** What the SDK's request options type asks for; only the members above are ever used. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
