// Removes from dist/src what tsc built from a source that is gone (a file moved or deleted since):
// tsc never deletes, and the package ships dist/src whole. Run by `npm pack` and `npm publish`
// (the prepack script, before prepare's tsc), so a stale module never reaches the tarball.
import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'src');
const pruned = [];

/** The source tsc built a file of dist/src from: x.js, x.d.ts, x.js.map ← src/x.ts. */
function sourceOf(file) {
  return join(root, 'src', relative(built, file).replace(/(\.d\.ts|\.js\.map|\.js)$/, '.ts'));
}

/** Prunes one folder; true when it is left empty (then removed). */
function prune(dir) {
  let left = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // .cjs: the bundled command (scripts/bundle-cli.mjs), made again by prepare's build.
    if (entry.isDirectory() ? prune(path) : !path.endsWith('.cjs') && !existsSync(sourceOf(path))) {
      if (!entry.isDirectory()) {
        rmSync(path);
        pruned.push(relative(root, path));
      }
    } else {
      left++;
    }
  }
  if (left === 0 && dir !== built) rmdirSync(dir);
  return left === 0;
}

if (existsSync(built)) prune(built);
if (pruned.length > 0)
  process.stderr.write(`prune-dist: removed ${pruned.length} stale file(s) of dist/src: ${pruned.slice(0, 5).join(', ')}${pruned.length > 5 ? ', …' : ''}\n`);
