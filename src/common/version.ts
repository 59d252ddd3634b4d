import { readFileSync } from 'node:fs';
import { PACKAGE_ROOT } from './package-root.js';

/**
 * berry-mcp's version, read once from its package.json, so the CLI's --version, serve's server info
 * and the MCP client info never disagree with the package.
 */
export const VERSION: string = (JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version: string }).version;
