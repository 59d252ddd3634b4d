/**
 * An entry's `protocol`: which MCP revision berry-mcp speaks to its server. `auto` probes
 * `server/discover` once and falls back to `initialize`; a revision pins that era.
 */

export const PROTOCOL_SETTINGS = ['auto', '2026-07-28', '2025-11-25'] as const;

/** `auto` (the default), or the one revision to speak. */
export type ProtocolSetting = (typeof PROTOCOL_SETTINGS)[number];

/** The revisions berry-mcp speaks, newest first. */
export const SPOKEN_REVISIONS = ['2026-07-28', '2025-11-25'] as const;

/** The problem with a `protocol` value, or undefined when it is one of the settings. */
export function protocolProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && (PROTOCOL_SETTINGS as readonly string[]).includes(value)) return undefined;
  const got = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : value === null ? 'null' : typeof value;
  return `must be one of ${PROTOCOL_SETTINGS.map((s) => `"${s}"`).join(', ')}, got ${got}`;
}
