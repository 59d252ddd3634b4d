/**
 * What the `server/discover` probe did, as open.ts reads it when a start fails: whether
 * `initialize` went out, whether the probe ran out of its budget (era.ts) before it, and the SDK's
 * complaint about an answer that came after the probe gave up. Apart from era.ts, which the host
 * loads at once (a `run` that calls no tool loads no SDK): this needs the SDK's values.
 */
import { SdkError, SdkErrorCode, type Transport } from '@modelcontextprotocol/client';

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

/** The SDK's connect failed on the probe's own timeout, before `initialize` (HTTP: the SDK does not fall back). */
export function probeTimedOut(error: unknown, initializeSent: boolean): boolean {
  return !initializeSent && error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

/** The SDK's complaint about an answer to its probe that came after the probe gave up (stdio): no error. */
export function isLateProbeAnswer(error: Error): boolean {
  return error.message.startsWith('Received a response for an unknown message ID') && error.message.includes('"id":"server-discover-probe-');
}
