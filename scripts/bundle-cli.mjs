// Bundles the berry-mcp command, after tsc, into two CommonJS files in dist/src/cli/ (src/cli/launch/launch.ts
// says why): command.cjs, everything cli/start.js reaches; launch.cjs, which turns on Node's compile
// cache and then loads command.cjs. Packages stay outside (required from node_modules as before).
// bin/berry-mcp starts launch.cjs unless a later tsc build made it older than dist/src/bin.js.
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cli = fileURLToPath(new URL('../dist/src/cli/', import.meta.url));

// A package loaded late by import() is required instead, in a function run on first use: import()
// from code compiled by node:vm (src/cli/launch/bundle-cache.ts) needs an experimental flag on Node 20.
// Every package berry-mcp imports late has a CommonJS entry; esbuild's __toESM gives require's
// answer the shape of import()'s (`default` and the named exports).
const importAsRequire = {
  name: 'import-as-require',
  setup(bundle) {
    bundle.onResolve({ filter: /^[^./]/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, namespace: 'required' } : undefined));
    bundle.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
      resolveDir: cli,
    }));
  },
};
const options = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  // Modules that find files by their own URL: the bundle stands one folder below dist/src, as
  // common/package-root.js does, so its URL serves them all.
  define: { 'import.meta.url': '__importMetaUrl' },
  plugins: [importAsRequire],
  banner: { js: "'use strict';\nconst __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};

// The launcher last: a failed bundle leaves it older than the build, and the launcher then runs dist/src/bin.js.
rmSync(`${cli}launch.cjs`, { force: true });
await build({ ...options, entryPoints: [`${cli}start.js`], outfile: `${cli}command.cjs` });
if (readFileSync(`${cli}command.cjs`, 'utf8').includes('import('))
  throw new Error('bundle-cli: command.cjs still has an import(), which code compiled by node:vm cannot run on Node 20');
await build({ ...options, entryPoints: [`${cli}launch/launch.js`], outfile: `${cli}launch.cjs`, external: ['./command.cjs'] });
