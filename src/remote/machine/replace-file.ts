import { nodeCrypto } from '../../common/lazy-node.js';
import type { Machine } from './machine.js';

export interface ReplaceFileOptions {
  /** The new file's mode (the temp file is created with it, so the data is never readable by others). */
  readonly mode: number;
  /** Set `mode` past the umask (a chmod of the temp file): to keep an existing file's mode. @default false */
  readonly exactMode?: boolean;
  readonly signal?: AbortSignal;
  /** Runs after the temp file is written, before it is renamed: a throw leaves the old file as it was. */
  readonly beforeRename?: () => Promise<void>;
}

/**
 * Replaces `path` on `machine` atomically: `data` goes to a temp file beside it, created exclusively
 * (O_EXCL, which never follows a symlink), then renamed over the file. No temp file is left behind.
 * A symlink at `path` is replaced by the file: give the link's target (link-target.ts) to keep it.
 */
export async function replaceFile(machine: Machine, path: string, data: string, options: ReplaceFileOptions): Promise<void> {
  const temp = `${path}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
  try {
    await machine.writeFile(temp, data, { mode: options.mode, exclusive: true }, options.signal);
    if (options.exactMode === true) await machine.chmod(temp, options.mode, options.signal);
    await options.beforeRename?.();
    await machine.rename(temp, path, options.signal);
  } catch (error) {
    await machine.unlink(temp).catch(() => {});
    throw error;
  }
}
