/**
 * The kept Redis client (ioredis) of a store: connected on first use (a run that needs no record
 * never opens a socket), never queueing a command while disconnected, reconnecting by itself at
 * most a second apart. Every operation ends within OPERATION_MS, failing BERRY_STORE_UNAVAILABLE
 * when Redis does not answer; the error names the URL without its password.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { BerryError, isBerryError } from '../../common/errors.js';
import type { RedisSelection } from './selection.js';

/** An operation that needs the store fails by then (the bound is 5 s). */
export const OPERATION_MS = 4_500;
/** The longest pause between reconnection attempts: service is back about this soon after Redis. */
const MAX_RECONNECT_DELAY_MS = 1_000;

export class RedisConnection {
  readonly client: Redis;
  readonly #selection: RedisSelection;
  #lastError = '';
  #closed = false;

  constructor(selection: RedisSelection) {
    this.#selection = selection;
    this.client = new Redis(selection.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      connectTimeout: 3_000,
      commandTimeout: OPERATION_MS - 500,
      maxRetriesPerRequest: 1,
      retryStrategy: (times) => Math.min(100 * times, MAX_RECONNECT_DELAY_MS),
      // The store's own name on the server, for `CLIENT LIST`.
      connectionName: 'berry-mcp',
    });
    // Kept for the next error; ioredis would print an unhandled error event otherwise.
    this.client.on('error', (error: Error) => {
      this.#lastError = error.message;
    });
  }

  /** Runs `fn` on a ready client within OPERATION_MS; BERRY_STORE_UNAVAILABLE when Redis does not answer by then. */
  async run<T>(fn: (client: Redis) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const deadline = Date.now() + OPERATION_MS;
    await this.#ready(deadline, signal);
    const timer = new AbortController();
    const timeout = sleep(Math.max(0, deadline - Date.now()), undefined, { signal: timer.signal }).then(() => {
      throw this.#unavailable('no answer in time');
    });
    timeout.catch(() => {});
    try {
      return await Promise.race([fn(this.client), timeout]);
    } catch (error) {
      throw isBerryError(error) || isReplyError(error) ? error : this.#unavailable(message(error));
    } finally {
      timer.abort();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.client.status === 'ready') await this.client.quit().catch(() => {});
    this.client.disconnect();
  }

  async #ready(deadline: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.#closed) throw new BerryError('MCP_HOST_CLOSED', 'The store was closed with its host.');
    if (this.client.status === 'ready') return;
    // The first use connects; later, ioredis reconnects by itself (retryStrategy).
    if (this.client.status === 'wait') this.client.connect().catch(() => {});
    // A loop on a getter TypeScript narrowed once: re-read it each turn.
    while ((this.client.status as string) !== 'ready') {
      signal?.throwIfAborted();
      if (this.#closed || Date.now() >= deadline) throw this.#unavailable(this.#lastError || `its connection is ${this.client.status}`);
      await sleep(25);
    }
  }

  #unavailable(reason: string): BerryError {
    const { shownUrl, url, key } = this.#selection;
    // ioredis names host and port only; the scrub is for whatever else a message might carry.
    const secrets = [url, new URL(url).password, key.toString('base64'), key.toString('hex')].filter((s) => s.length > 0);
    let text = reason;
    for (const secret of secrets) text = text.split(secret).join('[redacted]');
    return new BerryError(
      'BERRY_STORE_UNAVAILABLE',
      `The shared store ${shownUrl} did not answer (${text.slice(0, 200)}). Nothing was written elsewhere; retry once Redis is reachable again.`,
    );
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Redis answered with an error (a bug of ours, a wrong type): not an outage. */
function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}
