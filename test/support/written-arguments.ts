// What a model writes from a tool's inputSchema, for the no-false-refusal corpora (the call-time
// argument check and the check before a run must both let it through).

/** The arguments a model writes from a schema: each required property without a default, a plain value of its type. */
export function written(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return 'x';
  const s = schema as Record<string, unknown> & {
    properties?: Record<string, unknown>;
    required?: string[];
    enum?: unknown[];
    anyOf?: unknown[];
    items?: unknown;
    minItems?: number;
  };
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) return written(s.anyOf.find((b) => (b as Record<string, unknown>)['type'] !== 'null'));
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => written(s.items));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? [])
        if (s.properties?.[name] !== undefined && !Object.hasOwn(s.properties[name] as object, 'default')) out[name] = written(s.properties[name]);
      return out;
    }
    default:
      return FORMATTED[String(s['format'])] ?? 'x';
  }
}

/** What a model writes for a string of these formats. */
const FORMATTED: Record<string, string> = {
  uri: 'https://example.com/',
  url: 'https://example.com/',
  'date-time': '2026-12-04T10:00:00Z',
  email: 'a@example.com',
};
