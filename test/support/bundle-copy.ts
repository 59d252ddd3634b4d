// A copy of the bundled command (dist/src/cli/launch.cjs and command.cjs) in a folder of its own,
// with its own package.json and the project's node_modules linked, so a test may edit the bundle
// and keep its code cache apart (XDG_CACHE_HOME in the copy's folder).
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from './paths.js';
import { runProcess, type CliResult } from './processes.js';
import { tempDir } from './temp-dir.js';

/** Node ≥ 22.1 caches the bundle itself (module.enableCompileCache); bundle-cache.ts keeps one on Node 20. */
export const NODE_HAS_CACHE = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

export interface BundleCopy {
  readonly dir: string;
  readonly command: string;
  readonly cacheDir: string;
  /** `node --no-node-snapshot launch.cjs ARGS…` with the copy's cache. */
  start(args: readonly string[], env?: Record<string, string>, input?: string): Promise<CliResult>;
  /** The names of the bundle's cache files. */
  cacheFiles(): string[];
  cleanup(): void;
}

export function bundleCopy(version = '9.8.7'): BundleCopy {
  const tmp = tempDir();
  const from = join(PROJECT_ROOT, 'dist', 'src', 'cli');
  const cli = join(tmp.dir, 'pkg', 'dist', 'src', 'cli');
  mkdirSync(cli, { recursive: true });
  const launch = join(cli, 'launch.cjs');
  copyFileSync(join(from, 'launch.cjs'), launch);
  copyFileSync(join(from, 'command.cjs'), join(cli, 'command.cjs'));
  writeFileSync(join(tmp.dir, 'pkg', 'package.json'), JSON.stringify({ name: 'berry-mcp', version }));
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(tmp.dir, 'pkg', 'node_modules'));
  const cacheHome = join(tmp.dir, 'cache');
  const cacheDir = join(cacheHome, 'berry-mcp', 'compile-cache');
  return {
    dir: tmp.dir,
    command: join(cli, 'command.cjs'),
    cacheDir,
    start: (args, env = {}, input) =>
      runProcess(process.execPath, ['--no-node-snapshot', launch, ...args], {
        cwd: tmp.dir,
        env: { XDG_CACHE_HOME: cacheHome, HOME: tmp.dir, ...env },
        ...(input === undefined ? {} : { input }),
      }),
    cacheFiles: () => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((name) => name.startsWith('command.cjs-')) : []),
    cleanup: () => tmp.cleanup(),
  };
}
