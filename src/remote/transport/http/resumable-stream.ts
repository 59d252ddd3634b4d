/**
 * The body of a POST answered with an event stream, made resumable: when the server ends the stream
 * before every request on it got its response, reconnect with GET and `Last-Event-ID` after the
 * server's `retry` delay (bounded failed attempts) and carry on with the new stream as if it were the same
 * one. When that is impossible, an error response for each unanswered request ends the stream, so
 * the call fails at once instead of waiting out its timeout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SseScanner } from './sse-scanner.js';

export type JsonRpcId = string | number;

/** Marks the error response that stands in for an answer lost with its stream. */
export const STREAM_LOST_MARK = 'berryStreamLost';
export const STREAM_LOST_CODE = -32000;

export interface ResumableStreamOptions {
  readonly first: ReadableStream<Uint8Array>;
  /** The requests whose responses are due on this stream. */
  readonly ids: readonly JsonRpcId[];
  /** Opens the GET that resumes after `lastEventId`. */
  readonly reconnect: (lastEventId: string, signal: AbortSignal) => Promise<Response>;
  /** Aborted when the requests are cancelled or the transport closes: stop quietly. */
  readonly signal: AbortSignal;
  /** Reconnections in a row that may fail before giving up (one that succeeds starts a new count). */
  readonly maxAttempts: number;
  /** Delay when the server sent no `retry`. */
  readonly defaultRetryMs: number;
  /** A server's `retry` is kept within these bounds (a server that keeps closing cannot make us spin). */
  readonly minRetryMs: number;
  readonly maxRetryMs: number;
  /** A request from the server (it has a method and an id) passed by, before the reader sees it. */
  readonly onServerRequest?: (id: JsonRpcId) => void;
  /** Called once when the stream ends for any reason. */
  readonly onEnd: () => void;
  /** After the last response, how long the server has to end the stream before it is cut. */
  readonly closeGraceMs: number;
}

// Requests and notifications are small; a bigger message is a response, found by its id at either end.
const PARSE_LIMIT = 64 * 1024;
const encoder = new TextEncoder();

export function resumableStream(options: ResumableStreamOptions): ReadableStream<Uint8Array> {
  const { signal } = options;
  const pending = new Map(options.ids.map((id) => [JSON.stringify(id), id] as const));
  const scanner = new SseScanner((data) => {
    const message = data.length <= PARSE_LIMIT ? parseObject(data) : undefined;
    if (message && typeof message['method'] === 'string' && isJsonRpcId(message['id'])) options.onServerRequest?.(message['id']);
    const key = responseKey(data, message, pending);
    if (key !== undefined) pending.delete(key);
  });
  let reader = options.first.getReader();
  let resumed = false;
  let failures = 0;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    options.onEnd();
  };

  /** A reader for the resumed stream, or a reason why there is none. */
  async function resume(): Promise<ReadableStreamDefaultReader<Uint8Array> | string> {
    let lastProblem = '';
    for (;;) {
      const lastEventId = scanner.lastEventId;
      if (lastEventId === undefined) return 'the server sent no event id to resume from';
      if (failures >= options.maxAttempts) {
        return `${options.maxAttempts} reconnection attempt${options.maxAttempts === 1 ? '' : 's'} failed${lastProblem ? ` (last: ${lastProblem})` : ''}`;
      }
      failures++;
      const delay = Math.max(options.minRetryMs, Math.min(scanner.retryMs ?? options.defaultRetryMs, options.maxRetryMs));
      await sleep(delay, undefined, { signal });
      try {
        const response = await options.reconnect(lastEventId, signal);
        const type = response.headers.get('content-type') ?? '';
        if (response.ok && response.body && /^text\/event-stream/i.test(type)) {
          // A server that polls (closes the stream again and again, SEP-1699) is followed until the
          // call's own timeout; only failing reconnections are counted.
          failures = 0;
          return response.body.getReader();
        }
        lastProblem = response.ok ? `the GET answered ${type || 'no content type'}` : `the GET answered HTTP ${response.status}`;
        await response.body?.cancel().catch(() => {});
      } catch (error) {
        if (signal.aborted) throw error;
        lastProblem = error instanceof Error ? error.message : String(error);
      }
    }
  }

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        try {
          const { value, done } = pending.size === 0 ? await readOrGiveUp(reader, options.closeGraceMs) : await reader.read();
          if (!done) {
            scanner.push(value);
            controller.enqueue(value);
            if (resumed && pending.size === 0) {
              // The answer came on the resumed GET: nothing more is due there.
              void reader.cancel().catch(() => {});
              controller.close();
              end();
            }
            return;
          }
        } catch {
          // A broken stream is resumed like an ended one.
        }
        if (pending.size === 0 || signal.aborted) {
          controller.close();
          end();
          return;
        }
        let next: ReadableStreamDefaultReader<Uint8Array> | string;
        try {
          next = await resume();
        } catch {
          controller.close();
          end();
          return;
        }
        if (typeof next === 'string') {
          controller.enqueue(encoder.encode(lostEvents(pending, next)));
          controller.close();
          end();
          return;
        }
        reader = next;
        resumed = true;
        scanner.reset();
        // End whatever half event the old stream left in the reader's parser.
        controller.enqueue(encoder.encode('\n\n'));
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason).catch(() => {});
    },
  });
}

/**
 * The next read, or the end when nothing comes within `graceMs`: once every response arrived,
 * a server that leaves the stream open must not hold an HTTP connection per call.
 */
async function readOrGiveUp(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  graceMs: number,
): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
    timer.unref();
  });
  try {
    const result = await Promise.race([reader.read(), late]);
    if (result !== 'late') return result.done ? { done: true } : { done: false, value: result.value };
    void reader.cancel().catch(() => {});
    return { done: true, value: undefined };
  } finally {
    clearTimeout(timer);
  }
}

/** The pending key of a JSON-RPC response in `data`, if it answers one of the pending requests. */
function responseKey(data: string, message: Record<string, unknown> | undefined, pending: ReadonlyMap<string, JsonRpcId>): string | undefined {
  if (pending.size === 0) return undefined;
  if (data.length <= PARSE_LIMIT) {
    const m = message;
    if (!m || 'method' in m || !('result' in m || 'error' in m)) return undefined;
    const key = JSON.stringify(m['id']);
    return pending.has(key) ? key : undefined;
  }
  const head = data.slice(0, 256);
  const tail = data.slice(-256);
  for (const key of pending.keys()) {
    const needle = new RegExp(`"id"\\s*:\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*[,}]`);
    if (needle.test(head) || needle.test(tail)) return key;
  }
  return undefined;
}

/** `data` as a JSON object, or undefined. */
function parseObject(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** One error response per unanswered request, preceded by a blank line that ends any half event. */
function lostEvents(pending: ReadonlyMap<string, JsonRpcId>, reason: string): string {
  let out = '\n\n';
  for (const id of pending.values()) {
    const message = {
      jsonrpc: '2.0',
      id,
      error: {
        code: STREAM_LOST_CODE,
        message: `the server ended the response stream before answering, and it could not be resumed: ${reason}`,
        data: { [STREAM_LOST_MARK]: true },
      },
    };
    out += `event: message\ndata: ${JSON.stringify(message)}\n\n`;
  }
  return out;
}
