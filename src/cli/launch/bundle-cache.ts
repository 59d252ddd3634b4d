/**
 * V8's code cache of the bundled command (dist/src/cli/command.cjs), kept by hand on a Node that
 * has no module compile cache (Node 20; a newer Node caches the file itself). A start then reads
 * the compiled functions instead of parsing 0.9 MB of JavaScript: −16 ms of a `run` here.
 *
 * The cache is made at the process's exit, so it holds every function the command ran, not only
 * the top level: one per Node version and way of starting (the commands that run scripts start
 * Node without its snapshot and run other functions than the rest). It is used only for the file
 * it was made from: its first line names the file's size, mtime and inode, because V8 itself checks
 * only the source's length and would run a cache of an edited file of the same length. It lives in
 * the user's own cache folder (compile-cache.ts), written whole (a temporary file, then renamed),
 * and is read only when this user owns it and no one else may write it: a cache planted by another
 * user would run as this one. One that V8 rejects, or that cannot be read or written, is only a
 * slower start.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** Runs CommonJS file `file` as `require` would, compiled with the code cache kept in `dir`. */
export function requireWithCodeCache(file: string, dir: string): void {
  const fd = openSync(file, 'r');
  let header: Buffer;
  let source: string;
  try {
    const stats = fstatSync(fd);
    header = Buffer.from(`${stats.size} ${stats.mtimeMs} ${stats.ino}\n`);
    source = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  const start = process.execArgv.includes('--no-node-snapshot') ? '-no-snapshot' : '';
  const cacheFile = join(dir, `${basename(file)}-${process.version}-${process.arch}${start}.v8`);
  const cachedData = readCache(cacheFile, header);
  // No importModuleDynamically: the bundle has no import() (scripts/bundle-cli.mjs makes each a require and checks it).
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  if (cachedData === undefined || script.cachedDataRejected === true) process.once('exit', () => writeCache(script, dir, cacheFile, header));
  const module = new Module(file);
  module.filename = file;
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
}

function readCache(cacheFile: string, header: Buffer): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(cacheFile, 'r');
  } catch {
    return undefined;
  }
  try {
    // Compiled code runs as this user: only a file this user wrote and no one else may change.
    const stats = fstatSync(fd);
    if (stats.uid !== process.getuid?.() || (stats.mode & 0o022) !== 0) return undefined;
    const data = readFileSync(fd);
    return data.length > header.length && data.subarray(0, header.length).equals(header) ? data.subarray(header.length) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function writeCache(script: Script, dir: string, cacheFile: string, header: Buffer): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temp, Buffer.concat([header, script.createCachedData()]), { mode: 0o600 });
    renameSync(temp, cacheFile);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}
