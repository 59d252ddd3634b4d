/**
 * Where the installed berry-mcp command starts (bin/berry-mcp): a compile cache first, then the
 * command itself, bundled into one CommonJS file (dist/src/cli/command.cjs, made of cli/start.ts
 * by scripts/bundle-cli.mjs). This file runs bundled too, as dist/src/cli/launch.cjs, beside it.
 * One file instead of ≈ 170 ES modules: under Node 20's ES loader each costs ≈ 0.4 ms to resolve,
 * read and link, and the loader's own built-in modules are compiled from source when Node starts
 * without its snapshot, as `run` must. CommonJS keeps what the modules load late late: a module
 * reached by `import()` is one function in the bundle, run on first use, and so are the packages
 * it requires. (dist/src/bin.js, the unbundled entry, does the same work as ES modules.)
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { compileCacheDir, enableCompileCache } from '../../common/compile-cache.js';
import { requireWithCodeCache } from './bundle-cache.js';

const command = fileURLToPath(new URL('command.cjs', import.meta.url));
// A Node with a module compile cache (≥ 22.1) caches the bundle itself; on Node 20 we keep V8's.
const byNode = enableCompileCache() !== undefined;
const dir = byNode || process.env['NODE_DISABLE_COMPILE_CACHE'] ? undefined : compileCacheDir();
if (dir === undefined) createRequire(import.meta.url)(command);
else requireWithCodeCache(command, dir);
