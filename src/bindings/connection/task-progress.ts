/**
 * Progress of a task call (2025-11-25 tasks): the server keeps reporting on the `tools/call`'s
 * progress token after it answered with the task, but the SDK forgets a request's progress
 * handler with its response. A task call sends a token of its own (`berry-task-N`) instead, and
 * this tap hands that token's notifications to the call, before the SDK (which only logs them).
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

const PREFIX = 'berry-task-';
let next = 0;

/** Token → what gets that token's notification params, unchecked (the connection's gate checks them). */
export type ProgressTaps = Map<string, (params: unknown) => void>;

/** A fresh token for one task call. */
export function taskProgressToken(): string {
  return `${PREFIX}${++next}`;
}

/** Installs the tap in front of whatever reads the transport's messages now (the SDK chains it). */
export function tapTaskProgress(transport: Transport, taps: ProgressTaps): void {
  const earlier = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as JSONRPCMessage & { method?: unknown; params?: { progressToken?: unknown } };
    const token = m.method === 'notifications/progress' ? m.params?.progressToken : undefined;
    if (typeof token === 'string' && token.startsWith(PREFIX)) taps.get(token)?.(m.params);
    earlier?.(message, extra);
  };
}

/** The SDK's complaint about a task token it does not know: not worth a log line. */
export function isTappedProgressNoise(error: Error): boolean {
  return error.message.startsWith('Received a progress notification for an unknown token') && error.message.includes(`"${PREFIX}`);
}
