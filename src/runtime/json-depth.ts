/**
 * Real tool arguments and results nest a dozen levels; thousands would overflow the host's own
 * (recursive) JSON.stringify and JSON.parse.
 */
export const MAX_JSON_DEPTH = 256;

/** Whether brackets in `json` (outside strings) nest deeper than `max`; linear, stops early. */
export function nestedDeeperThan(json: string, max: number): boolean {
  if (json.length <= max * 2) return false;
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string: up to the next quote that is not escaped.
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
