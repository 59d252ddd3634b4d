/**
 * The one default of `maxArgumentBytes`: the sandbox (runtime) refuses a larger `tools.*` argument
 * before it crosses, the MCP host before it is sent. 4 MiB.
 */
export const DEFAULT_MAX_ARGUMENT_BYTES = 4 * 1024 * 1024;
