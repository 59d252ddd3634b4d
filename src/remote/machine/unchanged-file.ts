import { closeSync, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';

/**
 * A file is taken as unchanged only when its ctime was already this much older than the moment we
 * read it. File times are coarse (a kernel tick here; whole seconds, or two, on some filesystems),
 * so a write in the same tick as our read could keep every stamp; one made this long after the
 * ctime we saw always gets a later one.
 */
export const SETTLED_MS = 2000;
const MAX_CACHED_BYTES = 1 << 20;
const MAX_FILES = 16;

// Times as float milliseconds (≈ 0.2 µs of precision today): a change made after the file settled
// moves its ctime by at least SETTLED_MS, far beyond that. Plain stats cost half of bigint ones.
interface Seen {
  readonly text: string;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/**
 * Reads small local files that are read again and again (the config, on every operation), and
 * answers from memory when one stat proves the file unchanged: same device, inode, size, mtime and
 * ctime as at a read where its ctime was already settled. Any write, truncation, chmod or rename
 * onto the path changes the ctime (which no user can set) or the inode, so the next read sees it;
 * a stat costs ≈ 2 µs against ≈ 9 µs for open, fstat, read and close.
 */
export class UnchangedFiles {
  readonly #seen = new Map<string, Seen>();

  /** The file's text, or undefined when it does not exist. Other errors throw. */
  read(path: string): string | undefined {
    const seen = this.#seen.get(path);
    if (seen !== undefined) {
      const stats = statSync(path, { throwIfNoEntry: false });
      if (stats !== undefined && same(stats, seen)) return seen.text;
    }
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      this.#seen.delete(path);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      // Stat before reading: a write during the read changes the stamps, and the next read sees it.
      const stats = fstatSync(fd);
      const text = readFileSync(fd, 'utf8');
      this.#remember(path, stats, text);
      return text;
    } finally {
      closeSync(fd);
    }
  }

  #remember(path: string, stats: Stats, text: string): void {
    this.#seen.delete(path);
    const settled = Date.now() - stats.ctimeMs > SETTLED_MS;
    if (!settled || !stats.isFile() || stats.size > MAX_CACHED_BYTES) return;
    this.#seen.set(path, { text, dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs });
    if (this.#seen.size > MAX_FILES) this.#seen.delete(this.#seen.keys().next().value as string);
  }
}

function same(stats: Stats, seen: Seen): boolean {
  return stats.ctimeMs === seen.ctimeMs && stats.mtimeMs === seen.mtimeMs && stats.size === seen.size && stats.ino === seen.ino && stats.dev === seen.dev;
}
