/**
 * What one tool's results looked like: the shape, how many calls it was learned from, and where
 * the value was (`structuredContent`, or `content[0].text` parsed as JSON).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { inferShape } from './infer.js';
import { mergeShapes } from './merge.js';
import { shapeText } from './render.js';
import { maskKeys } from './mask-keys.js';
import { boundShape, isCount, parseShape, type Shape } from './shape.js';

/** Masks a key that holds a secret (the gate's whole-text mask). */
export type KeyMask = (key: string) => string;
const keepKey: KeyMask = (key) => key;

export type ObservedSource = 'structuredContent' | 'text';

export interface Observation {
  readonly calls: number;
  readonly source: ObservedSource;
  readonly shape: Shape;
}

/** Tool name → what its results looked like. */
export type ObservedTools = ReadonlyMap<string, Observation>;

/**
 * A text block longer than this is not parsed to learn from (the call's own result is untouched):
 * parsing is the one cost of learning that grows with the result (≈ 1–2 ms at this size).
 */
const MAX_TEXT_CHARS = 256 * 1024;

/** The observation of one successful result (its keys masked), or undefined when it holds no JSON value to learn from. */
export function observeResult(result: CallToolResult, mask: KeyMask = keepKey): Observation | undefined {
  const source = sourceOf(result);
  if (source === 'structuredContent') return { calls: 1, source, shape: maskKeys(inferShape(result.structuredContent), mask) };
  if (source === undefined) return undefined;
  try {
    return { calls: 1, source, shape: maskKeys(inferShape(JSON.parse((result.content[0] as { text: string }).text)), mask) };
  } catch {
    return undefined;
  }
}

/** Where a result's JSON value is, without reading it (cheap: a call's way back asks it); undefined when there is none. */
export function sourceOf(result: CallToolResult): ObservedSource | undefined {
  if (result.isError === true) return undefined;
  const structured = result.structuredContent;
  if (typeof structured === 'object' && structured !== null) return 'structuredContent';
  const first = Array.isArray(result.content) ? result.content[0] : undefined;
  if (first?.type !== 'text' || typeof first.text !== 'string' || first.text.length > MAX_TEXT_CHARS) return undefined;
  // Only objects and arrays: a bare "42" or "true" says nothing a model can use.
  return /^\s*[[{]/.test(first.text) ? 'text' : undefined;
}

/** Two observations of one tool; `structuredContent` wins over parsed text (a server that began to send it). */
export function mergeObservations(a: Observation | undefined, b: Observation): Observation {
  if (a === undefined) return { ...b, shape: boundShape(b.shape) };
  if (a.source !== b.source) return a.source === 'structuredContent' ? a : { ...b, shape: boundShape(b.shape) };
  return { calls: a.calls + b.calls, source: a.source, shape: boundShape(mergeShapes(a.shape, b.shape)) };
}

/** `(observed over 3 calls) { … }`, or `(observed over 3 calls, JSON in content[0].text) { … }`. */
export function observedText(observation: Observation): string {
  const calls = `${observation.calls} call${observation.calls === 1 ? '' : 's'}`;
  const where = observation.source === 'text' ? ', JSON in content[0].text' : '';
  return `(observed over ${calls}${where}) ${shapeText(observation.shape)}`;
}

/** The file beside a saved catalog: `{ format, catalog, tools: [[name, calls, source, shape]] }`. */
const FORMAT = 1;

export function serializeObserved(catalog: string, tools: ObservedTools): unknown {
  return { format: FORMAT, catalog, tools: [...tools].map(([name, o]) => [name, o.calls, o.source, o.shape]) };
}

/**
 * The observations saved for `catalog`; none when the file is for another catalog or not ours. Keys
 * are masked again: a file written before keys were masked, or under another config, may hold one.
 */
export function parseObserved(value: unknown, catalog: string, mask: KeyMask = keepKey): Map<string, Observation> {
  const tools = new Map<string, Observation>();
  if (typeof value !== 'object' || value === null) return tools;
  const file = value as { format?: unknown; catalog?: unknown; tools?: unknown };
  if (file.format !== FORMAT || file.catalog !== catalog || !Array.isArray(file.tools)) return tools;
  for (const entry of file.tools) {
    if (!Array.isArray(entry) || entry.length !== 4) continue;
    const [name, calls, source, raw] = entry as unknown[];
    const shape = parseShape(raw);
    if (typeof name !== 'string' || mask(name) !== name || !isCount(calls) || (source !== 'structuredContent' && source !== 'text') || shape === undefined)
      continue;
    tools.set(name, { calls, source, shape: boundShape(maskKeys(shape, mask)) });
  }
  return tools;
}
