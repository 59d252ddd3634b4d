/**
 * Node's module compile cache (Node ≥ 22.1: `module.enableCompileCache`), turned on by the
 * berry-mcp command before it loads the rest of itself: a start-up then reads the compiled code of
 * each module instead of compiling it. Node 20 has none, and nothing happens.
 *
 * In the user's own cache folder, not the shared temp folder Node defaults to: compiled code read
 * from a folder another user could write first would run as this user. Never in the way: an
 * unwritable folder is Node's FAILED status (nothing thrown, nothing cached); concurrent processes
 * are Node's concern (it checks each entry against its source and drops a mismatched one);
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off, and NODE_COMPILE_CACHE chooses the folder.
 */
import nodeModule from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Enable = (directory?: string) => unknown;

/** The folder: $XDG_CACHE_HOME/berry-mcp/compile-cache, else ~/.cache/berry-mcp/compile-cache. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg && isAbsolute(xdg)) return join(xdg, 'berry-mcp', 'compile-cache');
  try {
    const home = homedir();
    return home ? join(home, '.cache', 'berry-mcp', 'compile-cache') : undefined;
  } catch {
    return undefined;
  }
}

/** Turns the cache on where the Node has it; returns Node's answer (for the tests), or undefined. */
export function enableCompileCache(): unknown {
  const enable = (nodeModule as unknown as { enableCompileCache?: Enable }).enableCompileCache;
  if (typeof enable !== 'function') return undefined;
  try {
    // NODE_COMPILE_CACHE set: Node enabled it at start-up, in that folder.
    return process.env['NODE_COMPILE_CACHE'] ? enable() : enable(compileCacheDir());
  } catch {
    return undefined;
  }
}
