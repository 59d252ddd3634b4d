/**
 * Resolves a mount's path on the target machine the way a confined server cannot steer: component
 * by component from `/`, following a symlink only where no confined server could have put it.
 * A symlink in a directory such a server can change, or one it owns, refuses the path.
 *
 * Who can change a directory's entries: a uid other than root and berry-mcp's own (by owner, or
 * by group or other write bits; a sticky bit protects entries owned by root or berry-mcp); and,
 * when confined servers run as berry-mcp's own uid (an ordinary user), also berry-mcp's own
 * directories inside a place they can write (rw mounts, private homes).
 */
import * as posix from 'node:path/posix';
import type { FileInfo, Machine } from '../machine.js';

/** Whose rights decide what a confined server can change on the machine. */
export interface TrustContext {
  /** The uid berry-mcp acts as on the machine. */
  readonly self: number;
  /** Confined servers run as `self` (berry-mcp is not root there): they can write what `self` can, within their mounts. */
  readonly serversAreSelf: boolean;
  /** Real paths (no symlinks) confined servers can write through their mounts; used when `serversAreSelf`. */
  readonly writable: readonly string[];
  /** The private homes' directory: everything strictly inside it is a server's. */
  readonly homesDir: string;
}

export type TrustedPath =
  /** `real`: the same object, without symlinks; `exposed`: a confined server can change some component of it. */
  | { readonly kind: 'found'; readonly real: string; readonly exposed: boolean; readonly info: FileInfo }
  /** `real` is where the walk stopped: the first component that does not exist (or is no directory). */
  | { readonly kind: 'missing'; readonly real: string; readonly exposed: boolean }
  /** A symlink a confined server could have placed: `dir` holds it, `target` is what it names. */
  | { readonly kind: 'untrusted-link'; readonly link: string; readonly target: string; readonly dir: string };

/** Symlinks followed at most, as the kernel's own limit (ELOOP). */
const MAX_LINKS = 40;

/** lstat results of one start, shared by the paths it resolves. */
export type InfoCache = Map<string, Promise<FileInfo | undefined>>;

export function createInfoCache(): InfoCache {
  return new Map();
}

/**
 * Asks for every prefix of `paths` at once: over SSH the walk then costs about one round trip
 * instead of one per component (a symlink on the way still costs its own).
 */
export function prefetch(machine: Machine, paths: readonly string[], cache: InfoCache, signal?: AbortSignal): void {
  for (const path of paths) {
    const names = parts(path);
    for (let count = 0; count <= names.length; count += 1) {
      const prefix = join(names.slice(0, count));
      if (!names.slice(0, count).some((name) => name === '.' || name === '..')) infoOf(machine, prefix, cache, signal).catch(() => {});
    }
  }
}

/** Drops what the cache knows of `path` and its parents (after creating them). */
export function forget(cache: InfoCache, path: string): void {
  const names = parts(path);
  for (let count = 0; count <= names.length; count += 1) cache.delete(join(names.slice(0, count)));
}

/** Resolves absolute `path`; never follows a symlink a confined server could have made or replaced. */
export async function resolveTrusted(machine: Machine, path: string, context: TrustContext, cache: InfoCache, signal?: AbortSignal): Promise<TrustedPath> {
  const pending = parts(path);
  const resolved: string[] = [];
  let exposed = false;
  let links = 0;
  let dirInfo = await infoOf(machine, '/', cache, signal);
  let info: FileInfo | undefined = dirInfo;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      // Physical: `resolved` holds no symlink, so its parent is the real one.
      resolved.pop();
      dirInfo = await infoOf(machine, join(resolved), cache, signal);
      info = dirInfo;
      continue;
    }
    const dir = join(resolved);
    const here = join([...resolved, part]);
    info = await infoOf(machine, here, cache, signal);
    if (info === undefined) return { kind: 'missing', real: here, exposed };
    const changeable = dirInfo === undefined || canChange(dir, dirInfo, info, context);
    exposed ||= changeable;
    if (info.type === 'symlink') {
      // Read even when refused: the message shows where it leads. A link that changes meanwhile is in a changeable place, refused anyway.
      const target = await machine.readLink(here, signal).catch(() => '');
      if (changeable || !trustedOwner(info.uid, context) || ++links > MAX_LINKS || target === '') return { kind: 'untrusted-link', link: here, target, dir };
      if (target.startsWith('/')) resolved.length = 0;
      pending.unshift(...parts(target));
      dirInfo = await infoOf(machine, join(resolved), cache, signal);
      continue;
    }
    if (pending.some((next) => next !== '.') && info.type !== 'directory') return { kind: 'missing', real: here, exposed };
    resolved.push(part);
    dirInfo = info;
  }
  return info === undefined ? { kind: 'missing', real: join(resolved), exposed } : { kind: 'found', real: join(resolved), exposed, info };
}

/** True when someone other than root and berry-mcp, or a confined server, can replace `entry` in `dir`. */
export function canChange(dirPath: string, dir: FileInfo, entry: FileInfo, context: TrustContext): boolean {
  if (!trustedOwner(dir.uid, context)) return true;
  if ((dir.mode & 0o022) !== 0 && !((dir.mode & 0o1000) !== 0 && trustedOwner(entry.uid, context))) return true;
  return context.serversAreSelf && dir.uid === context.self && isServerWritable(dirPath, context);
}

/** Inside a place confined servers write: an rw mount, or a private home. */
export function isServerWritable(path: string, context: TrustContext): boolean {
  return context.writable.some((place) => within(path, place)) || (path !== context.homesDir && within(path, context.homesDir));
}

function trustedOwner(uid: number, context: TrustContext): boolean {
  return uid === 0 || uid === context.self;
}

export function within(path: string, dir: string): boolean {
  const relative = posix.relative(dir, path);
  return relative === '' || (!relative.startsWith('..') && !posix.isAbsolute(relative));
}

function parts(path: string): string[] {
  return path.split('/').filter((part) => part !== '');
}

function join(resolved: readonly string[]): string {
  return `/${resolved.join('/')}`;
}

function infoOf(machine: Machine, path: string, cache: InfoCache, signal: AbortSignal | undefined): Promise<FileInfo | undefined> {
  let info = cache.get(path);
  if (!info) {
    info = machine.fileInfo(path, signal);
    cache.set(path, info);
  }
  return info;
}
