import { readFileSync } from 'node:fs';

/**
 * berry-mcp's version, read once from its package.json (dist/src/common/ → the package root), so
 * the CLI's --version, serve's server info and the MCP client info never disagree with the package.
 */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
