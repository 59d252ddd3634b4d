/**
 * What the `server/discover` probe did, as open.ts reads it: whether `initialize` went out, an HTTP
 * probe that went unanswered past its budget (era.ts), and the SDK's complaint about an answer that
 * came after the probe gave up. Apart from era.ts, which the host loads at once (a `run` that calls
 * no tool loads no SDK).
 */
import type { FetchLike, Transport } from '@modelcontextprotocol/client';

/** Whether `initialize` has gone out on `transport` yet (watched from now on). */
export function watchInitialize(transport: Transport): () => boolean {
  let sent = false;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ((message as { method?: unknown }).method === 'initialize') sent = true;
    return send(message, options);
  };
  return () => sent;
}

// Above this a POST body is not read: the probe's is a few hundred bytes.
const PROBE_BODY_LIMIT = 64 * 1024;

/**
 * The HTTP probe's silence: from the moment a POST carrying `server/discover` leaves to its answer's
 * headers. OAuth work around it (a refresh before it, a sign-in after its 401) is not silence and
 * does not count. Past `probeMs` that POST is aborted, which ends the SDK's probe, and `gaveUp` says so.
 */
export class ProbeWatch {
  #gaveUp = false;

  constructor(readonly probeMs: number) {}

  get gaveUp(): boolean {
    return this.#gaveUp;
  }

  /** `fetch`, watching the probe's POSTs (put it under the OAuth session's fetch). */
  wrap(fetch: FetchLike): FetchLike {
    return async (url, init) => {
      if (init?.method !== 'POST' || !carriesDiscover(init.body)) return fetch(url, init);
      const silence = new AbortController();
      const timer = setTimeout(() => {
        this.#gaveUp = true;
        silence.abort(new Error(`no answer to server/discover within ${this.probeMs / 1000} s`));
      }, this.probeMs);
      try {
        return await fetch(url, { ...init, signal: init.signal ? AbortSignal.any([init.signal, silence.signal]) : silence.signal });
      } finally {
        clearTimeout(timer);
      }
    };
  }
}

function carriesDiscover(body: unknown): boolean {
  if (typeof body !== 'string' || body.length > PROBE_BODY_LIMIT || !body.includes('server/discover')) return false;
  try {
    return (JSON.parse(body) as { method?: unknown }).method === 'server/discover';
  } catch {
    return false;
  }
}

/** The SDK's complaint about an answer to its probe that came after the probe gave up (stdio): no error. */
export function isLateProbeAnswer(error: Error): boolean {
  return error.message.startsWith('Received a response for an unknown message ID') && error.message.includes('"id":"server-discover-probe-');
}
