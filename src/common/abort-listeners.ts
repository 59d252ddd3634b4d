/** Callbacks per signal, behind a single real listener each. */
const registry = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `fn` once when `signal` aborts, and returns the function that forgets it. Many concurrent
 * calls share one caller signal (a script's run): they share one EventTarget listener too, so a
 * 16-way fan-out neither trips Node's MaxListeners warning nor pays for EventTarget per call.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let callbacks = registry.get(signal);
  if (callbacks === undefined) {
    const created = new Set<() => void>();
    callbacks = created;
    registry.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        for (const callback of [...created]) callback();
        created.clear();
      },
      { once: true },
    );
  }
  callbacks.add(fn);
  const owned = callbacks;
  return () => {
    owned.delete(fn);
  };
}
