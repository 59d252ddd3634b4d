// Waiting for something to happen, with a deadline that fails the test and says what it waited for.
import { existsSync, readFileSync } from 'node:fs';

/** Polls `predicate` every 20 ms until it holds; throws after `timeoutMs` naming `what`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The lines of a fixture's event log ($FIXTURE_EVENT_LOG); none while it does not exist. */
export function events(log: string): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * Waits until the fixture event log `log` holds `count` lines equal to `event` (e.g. `started sleep`:
 * the fixture wrote it when the call reached the tool). Fails after `timeoutMs` with the lines seen.
 */
export async function waitForEvent(log: string, event: string, options: { count?: number; timeoutMs?: number } = {}): Promise<void> {
  const { count = 1, timeoutMs = 10_000 } = options;
  const end = Date.now() + timeoutMs;
  while (events(log).filter((line) => line === event).length < count) {
    if (Date.now() > end) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${count} × "${event}" in ${log}; saw: ${JSON.stringify(events(log))}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
