import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The Node request as the web `Request` the v2 SDK's HTTP entries take. Its signal aborts when the
 * client goes before the answer is complete: on the 2026 wire that is the request's cancellation.
 * The origin is fixed: nothing reads it, and a Host header is the client's to choose.
 */
export function toWebRequest(req: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return new Request(new URL(req.url ?? '/', 'http://localhost'), {
    method: req.method ?? 'GET',
    headers,
    signal: gone.signal,
  });
}

/** How long an event stream's headers wait for its first chunk before they are sent alone. */
const HEADERS_ALONE_AFTER_MS = 20;

/** Writes a web `Response` to `res`, streaming its body (SSE included) until it ends or the client goes. */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  // The headers go out with the first chunk when it comes soon (a quick run's whole answer is then
  // one write, and one wake-up of the client), else on their own so a long run's client sees them.
  const early = setTimeout(() => res.flushHeaders(), HEADERS_ALONE_AFTER_MS);
  const reader = response.body.getReader();
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  void closed.then(() => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      clearTimeout(early);
      // Corked until the next tick: a chunk and the end that follows it at once leave in one write.
      res.cork();
      process.nextTick(() => res.uncork());
      if (!res.write(value)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      if (res.destroyed) return;
    }
    res.end();
  } catch {
    // The body stream failed or was cancelled because the client went: nothing more to write.
    res.destroy();
  } finally {
    clearTimeout(early);
  }
}
