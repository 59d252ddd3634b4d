/** `berry-mcp serve`: code mode as an MCP server (stdio or Streamable HTTP) over one shared host. */
export { RunService } from './server.js';
export type { RunServiceOptions } from './server.js';
export { serveHttp, parseListen, generateToken } from './http/http.js';
export type { HttpServeOptions, HttpServing } from './http/http.js';
export { serveStdio } from './stdio.js';
export type { StdioServing } from './stdio.js';
export { httpHolders } from './http/http.js';
export { parseServeTokens } from './http/holders.js';
export type { ServeToken } from './http/holders.js';
