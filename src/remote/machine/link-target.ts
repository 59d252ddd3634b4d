/**
 * Where a write to a path lands on its machine: the file at the end of its symlinks, found as the
 * kernel follows them. Renaming a new file over a symlink would replace the link itself, so an
 * atomic replace of a linked file must happen at the link's target, in the target's own folder.
 */
import * as posix from 'node:path/posix';
import type { FileInfo, Machine } from './machine.js';

/** Linux's own limit on the links one path may pass through (ELOOP past it). */
const MAX_LINKS = 40;

export interface LinkTarget {
  /** The final path: a canonical folder and a name that is not a symlink. */
  readonly path: string;
  /** What is there (lstat): undefined when nothing is, as at the end of a dangling link. */
  readonly info: FileInfo | undefined;
  /** How many symlinks led there (0: `path` was no link). */
  readonly links: number;
}

/** Follows `path` (absolute) through its symlinks; the folders on the way must exist. */
export async function linkTarget(machine: Machine, path: string, signal?: AbortSignal): Promise<LinkTarget> {
  let current = path;
  for (let links = 0; ; links++) {
    // The folder resolved by the machine, so a relative target's `..` starts where the link really is.
    const folder = await machine.realPath(posix.dirname(current), signal);
    const real = posix.join(folder, posix.basename(current));
    const info = await machine.fileInfo(real, signal);
    if (info?.type !== 'symlink') return { path: real, info, links };
    if (links === MAX_LINKS) throw Object.assign(new Error(`Too many levels of symbolic links from ${path}`), { code: 'ELOOP', path });
    const target = await machine.readLink(real, signal);
    if (target === '') throw Object.assign(new Error(`The symbolic link ${real} is empty`), { code: 'ENOENT', path: real });
    // Left unnormalized on purpose: the next realPath reads any `..` in it through the links on the way.
    current = target.startsWith('/') ? target : `${folder === '/' ? '' : folder}/${target}`;
  }
}
