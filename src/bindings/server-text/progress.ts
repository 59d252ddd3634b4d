/**
 * A progress notification's params, checked: `progress` (and `total`, when given) must be finite
 * numbers ≥ 0, `message` a string. A notification with a bad `progress` is dropped; a bad `total`
 * or `message` is left out; the message is masked as a piece of a stream (a secret split across
 * two messages is masked at both ends) and cut to its cap.
 */
import type { ProgressEvent } from '../contract.js';
import { maskWithin, type Mask } from './bound.js';
import { MAX_PROGRESS_MESSAGE_CHARS } from './limits.js';

const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** The event to hand on, or undefined for a notification that must be dropped. */
export function progressEvent(server: string, tool: string, raw: unknown, piece: Mask): ProgressEvent | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { progress, total, message } = raw as { progress?: unknown; total?: unknown; message?: unknown };
  if (!isAmount(progress)) return undefined;
  const event: { -readonly [K in keyof ProgressEvent]: ProgressEvent[K] } = { server, tool, progress };
  if (isAmount(total)) event.total = total;
  if (typeof message === 'string') event.message = maskWithin(message, MAX_PROGRESS_MESSAGE_CHARS, piece);
  return event;
}
