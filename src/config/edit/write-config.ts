/**
 * Replaces the config file on its machine atomically: the new text goes to a temp file beside it,
 * which is renamed over the file only if the file still holds the text the edit started from. A
 * config reached through symlinks is edited where they lead, so the links stay links.
 */
import * as posix from 'node:path/posix';
import { BerryError, isBerryError } from '../../common/errors.js';
import type { Machine } from '../../remote/machine/index.js';
import { linkTarget } from '../../remote/machine/link-target.js';
import { replaceFile } from '../../remote/machine/replace-file.js';

/** The file may hold secrets: only its owner reads it (a new file, and its folder if new). */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * Writes `text` to `path` (or to the file its symlinks lead to, keeping that file's mode) unless
 * the file no longer holds `expected` (`undefined`: it did not exist) or the links now lead
 * elsewhere, which fails with MCP_CONFIG_CHANGED and changes nothing. A failed write is
 * MCP_CONFIG_WRITE_FAILED; no temp file is left behind either way. Returns the file written (`path` unless it is a symlink).
 */
export async function replaceConfigText(machine: Machine, path: string, expected: string | undefined, text: string, signal?: AbortSignal): Promise<string> {
  let target = path;
  let linked = false;
  try {
    await machine.mkdir(posix.dirname(path), DIR_MODE, signal);
    const found = await linkTarget(machine, path, signal);
    target = found.path;
    linked = found.links > 0;
    if (found.info !== undefined && found.info.type !== 'file') {
      throw Object.assign(new Error(`${target} is not a file`), { code: found.info.type === 'directory' ? 'EISDIR' : 'EINVAL' });
    }
    await replaceFile(machine, target, text, {
      // An existing file keeps its permission bits; a new one is the owner's alone.
      mode: found.info === undefined ? FILE_MODE : found.info.mode & 0o777,
      exactMode: found.info !== undefined,
      ...(signal ? { signal } : {}),
      // Read again as late as possible: another edit since ours started must not be lost.
      beforeRename: async () => {
        if ((await linkTarget(machine, path, signal)).path !== target || (await machine.readFile(target, signal)) !== expected) {
          throw new BerryError(
            'MCP_CONFIG_CHANGED',
            `The MCP config file ${path} changed while berry-mcp was editing it, so it was left as it is. Run the command again.`,
          );
        }
      },
    });
    return linked ? target : path;
  } catch (error) {
    if (isBerryError(error) || signal?.aborted === true) throw error;
    const { code, path: at } = (error ?? {}) as { code?: unknown; path?: unknown };
    const file = linked ? `${target} (where the symlink ${path} leads)` : path;
    // Where a link's way failed (a missing folder), when that is not the file itself.
    const where = typeof at === 'string' && at !== path && at !== target ? ` at ${at}` : '';
    throw new BerryError(
      'MCP_CONFIG_WRITE_FAILED',
      `Cannot write the MCP config file ${file}: ${typeof code === 'string' ? code : 'write failed'}${where}. Check that its folder is writable by the user running berry-mcp, or choose another --config.`,
      { cause: error },
    );
  }
}
