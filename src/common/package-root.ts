/**
 * Where berry-mcp's own files are, as file URLs ending in '/': the package root (package.json) and
 * the built sources (dist/src/). Counted from this module's place, dist/src/common/. The bundled
 * command (dist/src/cli/command.cjs, scripts/bundle-cli.mjs) sits as deep, one folder below
 * dist/src, so the same steps hold there: the one rule for any file that finds another by path.
 */
export const PACKAGE_ROOT: URL = new URL('../../../', import.meta.url);
export const BUILT_SOURCES: URL = new URL('../', import.meta.url);
