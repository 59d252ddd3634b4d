/**
 * An elicitation as whoever answers it sees it (the embedder's handler, the CLI's form, a serve
 * client): every string and key masked as a whole text, strings cut to their caps, and the form's
 * size bounded. One past a structural cap, or not shaped as an elicitation, is refused (declined).
 */
import { isJsonObject } from '../../common/json-object.js';
import type { ElicitationParams } from '../handlers.js';
import { maskWithin, type Mask } from './bound.js';
import {
  MAX_ELICITATION_DEPTH,
  MAX_ELICITATION_FIELDS,
  MAX_ELICITATION_ITEMS,
  MAX_ELICITATION_KEYS,
  MAX_ELICITATION_MESSAGE_CHARS,
  MAX_ELICITATION_TEXT_CHARS,
  MAX_ELICITATION_URL_CHARS,
} from './limits.js';

export type GatedElicitation = { readonly params: ElicitationParams } | { readonly refused: string };

/** Thrown inside the walk: the elicitation is past a cap. */
class Refused extends Error {}

/** The params to show, or why they are declined unshown. */
export function gateElicitation(params: unknown, whole: Mask): GatedElicitation {
  if (!isJsonObject(params)) return { refused: 'its params are not an object' };
  const mode = params['mode'] ?? 'form';
  if (mode !== 'form' && mode !== 'url') return { refused: `its mode ${JSON.stringify(String(mode).slice(0, 40))} is neither form nor url` };
  if (typeof params['message'] !== 'string') return { refused: 'it has no message' };
  if (mode === 'url') {
    const url = params['url'];
    if (typeof url !== 'string') return { refused: 'a URL-mode elicitation without a url' };
    if (url.length > MAX_ELICITATION_URL_CHARS) return { refused: `its url is longer than ${MAX_ELICITATION_URL_CHARS} characters` };
  } else {
    const schema = params['requestedSchema'];
    const properties = isJsonObject(schema) ? schema['properties'] : undefined;
    if (!isJsonObject(properties)) return { refused: 'a form without requestedSchema.properties' };
    const fields = Object.keys(properties).length;
    if (fields > MAX_ELICITATION_FIELDS) return { refused: `its form has ${fields} fields, more than ${MAX_ELICITATION_FIELDS}` };
  }
  try {
    return { params: masked(params, whole, 0) as ElicitationParams };
  } catch (error) {
    if (error instanceof Refused) return { refused: error.message };
    throw error;
  }
}

/** A masked copy of `value`; `depth` 0 is the params object (its message and url have their own caps). */
function masked(value: unknown, whole: Mask, depth: number, key?: string): unknown {
  if (typeof value === 'string') {
    // A URL is never cut (it would lead elsewhere); its length was checked.
    if (depth === 1 && key === 'url') return whole(value);
    return maskWithin(value, depth === 1 && key === 'message' ? MAX_ELICITATION_MESSAGE_CHARS : MAX_ELICITATION_TEXT_CHARS, whole);
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_ELICITATION_DEPTH) throw new Refused(`it nests deeper than ${MAX_ELICITATION_DEPTH} levels`);
  if (Array.isArray(value)) {
    if (value.length > MAX_ELICITATION_ITEMS) throw new Refused(`it has a list of ${value.length} items, more than ${MAX_ELICITATION_ITEMS}`);
    return value.map((item) => masked(item, whole, depth + 1));
  }
  const keys = Object.keys(value);
  const cap = key === 'properties' ? MAX_ELICITATION_FIELDS : MAX_ELICITATION_KEYS;
  if (keys.length > cap) throw new Refused(`it has an object of ${keys.length} keys, more than ${cap}`);
  const copy: Record<string, unknown> = {};
  for (const name of keys) {
    if (name.length > MAX_ELICITATION_TEXT_CHARS) throw new Refused(`it has a key of ${name.length} characters, more than ${MAX_ELICITATION_TEXT_CHARS}`);
    const inner = masked((value as Record<string, unknown>)[name], whole, depth + 1, name);
    // defineProperty: a key "__proto__" stays a plain key.
    Object.defineProperty(copy, whole(name), { value: inner, writable: true, enumerable: true, configurable: true });
  }
  return copy;
}
