/**
 * The abort and wait helpers, all in one place: one listener per signal (onAbort), a wait that
 * ends with a signal (abortable, abortPromise, sleep), and a bounded wait (settlesWithin).
 */
import { setTimeout as delay } from 'node:timers/promises';

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

/**
 * Whether `promise` fulfils within `ms`; false when the time passes or `signal` aborts first. The
 * timer does not keep the process alive and is cleared either way.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  const ac = new AbortController();
  const stop = (): void => ac.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    return await Promise.race([promise.then(() => true), delay(ms, false, { signal: ac.signal, ref: false }).catch(() => false)]);
  } finally {
    signal?.removeEventListener('abort', stop);
    ac.abort();
  }
}

/**
 * Waits for `promise` unless `signal` aborts first: then `onAborted` runs and the wait rejects
 * with `reason()` (the signal's reason by default). Many waits on one signal share its listener.
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAborted?: () => void,
  reason: () => unknown = () => signal?.reason,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    onAborted?.();
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const forget = onAbort(signal, () => {
      onAborted?.();
      reject(reason());
    });
    promise.then(
      (value) => {
        forget();
        resolve(value);
      },
      (error: unknown) => {
        forget();
        reject(error);
      },
    );
  });
}

/** Rejects with `reason()` when `signal` aborts: one caller's way out of a wait it shares with others. */
export function abortPromise(signal: AbortSignal, reason: () => unknown): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (): void => reject(reason());
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      forget();
      resolve();
    }, ms);
    const forget = onAbort(signal, () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
