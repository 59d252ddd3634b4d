/**
 * The pins of a local spawn: each path opened with O_PATH (no read right needed, nothing happens
 * to a FIFO or a device), then checked against the kernel's own name for what was opened
 * (`/proc/self/fd/N`). A symlink swapped into any component before the open sends the open
 * elsewhere, and that name then differs: the start is refused rather than mounting it.
 */
import { closeSync, openSync, readlinkSync } from 'node:fs';
import type { PinnedPath } from './machine.js';

/** O_PATH of asm-generic (every architecture Node ships for); Node does not export it. */
const O_PATH = 0o10000000;

/** The open descriptors by pin, or why they could not all be opened where asked (none stay open). */
export function openPins(pins: readonly PinnedPath[], command: string): { readonly fds: number[] } | { readonly error: Error } {
  const fds: number[] = [];
  if (pins.length === 0) return { fds };
  try {
    if (process.platform !== 'linux') throw Object.assign(new Error('pinned paths need Linux (O_PATH, /proc)'), { code: 'ENOTSUP' });
    for (const pin of pins) {
      const fd = openSync(pin.path, O_PATH);
      fds.push(fd);
      const landed = readlinkSync(`/proc/self/fd/${fd}`);
      if (landed !== pin.path) throw movedError(pin.path, landed, command);
    }
    return { fds };
  } catch (error) {
    closePins(fds);
    return { error: error as Error };
  }
}

export function closePins(fds: readonly number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // Already closed: nothing to release.
    }
  }
}

/** The child's stdio: three pipes, then each pin at its own descriptor (gaps ignored). */
export function pinnedStdio(pins: readonly PinnedPath[], fds: readonly number[]): Array<'pipe' | 'ignore' | number> {
  const stdio: Array<'pipe' | 'ignore' | number> = ['pipe', 'pipe', 'pipe'];
  pins.forEach((pin, index) => {
    while (stdio.length < pin.fd) stdio.push('ignore');
    stdio[pin.fd] = fds[index]!;
  });
  return stdio;
}

function movedError(path: string, landed: string, command: string): Error {
  return Object.assign(
    new Error(`Refused to start ${command}: the mount source ${path} changed while it was starting (it now leads to ${landed}); nothing was mounted`),
    { code: 'EBINDMOVED', path },
  );
}
