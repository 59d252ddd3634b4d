/**
 * The environment a process started on the local machine inherits: berry-mcp's own, minus the
 * variables that belong to berry-mcp itself. A stdio server is a third-party program; the serve
 * token would let it run code against every other server's credentials.
 */

/** Variables berry-mcp reads or sets for itself (secrets and internal plumbing), never inherited. */
export const OWN_VARIABLES: readonly string[] = Object.freeze([
  // serve --http's bearer token.
  'BERRY_SERVE_TOKEN',
  // The shared store's key and URL (a Redis URL may carry its password).
  'BERRY_STORE_KEY',
  'BERRY_STORE',
  // The launcher's parent-watch pipe (src/cli/parent-watch.ts).
  'BERRY_MCP_PARENT_FD',
]);

/** `process.env` without berry-mcp's own variables, then `extra` (an entry's `env`) on top. */
export function childEnv(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of OWN_VARIABLES) delete env[name];
  return Object.assign(env, extra);
}
