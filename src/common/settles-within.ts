import { setTimeout as delay } from 'node:timers/promises';

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
    return await Promise.race([
      promise.then(() => true),
      delay(ms, false, { signal: ac.signal, ref: false }).catch(() => false),
    ]);
  } finally {
    signal?.removeEventListener('abort', stop);
    ac.abort();
  }
}
