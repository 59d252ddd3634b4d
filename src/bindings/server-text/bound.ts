/** Cutting a server's text to its cap after masking it, so that a cut never leaves part of a secret. */

export type Mask = (text: string) => string;

/**
 * Only this many caps' worth of a longer text is masked before the cut: masking costs ≈ 2.5 ms a
 * megabyte, and what lies past the cap is dropped anyway.
 */
const HEAD_CAPS = 64;

/** `text` cut to `max` characters (never inside a surrogate pair), saying how much was left out. */
export function clip(text: string, max: number, length = text.length): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${length - end} more characters)`;
}

/**
 * `text` masked, then cut to `max`. A very long text is masked only as far as its head: a secret
 * cut at the head's end is masked by a piece mask (its start at the end), and sits far past the
 * cap anyway, unless masking shrank the head a lot (it held many long secrets): then all is masked.
 */
export function maskWithin(text: string, max: number, mask: Mask): string {
  const reach = max * HEAD_CAPS;
  if (text.length <= reach) return clip(mask(text), max);
  const head = mask(text.slice(0, reach));
  if (head.length < reach / 2) return clip(mask(text), max);
  return clip(head, max, head.length + text.length - reach);
}
