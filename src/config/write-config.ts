/**
 * Replaces the config file on its machine atomically: the new text goes to a temp file beside it,
 * which is renamed over the file only if the file still holds the text the edit started from.
 */
import * as posix from 'node:path/posix';
import { BerryError, isBerryError } from '../common/errors.js';
import type { Machine } from '../machine/index.js';
import { replaceFile } from '../machine/replace-file.js';

/** The file may hold secrets: only its owner reads it (a new file, and its folder if new). */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * Writes `text` to `path` unless the file no longer holds `expected` (`undefined`: it did not
 * exist), which fails with MCP_CONFIG_CHANGED and changes nothing. A failed write is
 * MCP_CONFIG_WRITE_FAILED; no temp file is left behind either way.
 */
export async function replaceConfigText(machine: Machine, path: string, expected: string | undefined, text: string, signal?: AbortSignal): Promise<void> {
  try {
    await machine.mkdir(posix.dirname(path), DIR_MODE, signal);
    await replaceFile(machine, path, text, {
      mode: FILE_MODE,
      ...(signal ? { signal } : {}),
      // Read again as late as possible: another edit since ours started must not be lost.
      beforeRename: async () => {
        if ((await machine.readFile(path, signal)) !== expected) {
          throw new BerryError(
            'MCP_CONFIG_CHANGED',
            `The MCP config file ${path} changed while berry-mcp was editing it, so it was left as it is. Run the command again.`,
          );
        }
      },
    });
  } catch (error) {
    if (isBerryError(error) || signal?.aborted === true) throw error;
    const code = (error as { code?: unknown } | undefined)?.code;
    throw new BerryError(
      'MCP_CONFIG_WRITE_FAILED',
      `Cannot write the MCP config file ${path}: ${typeof code === 'string' ? code : 'write failed'}. Check that its folder is writable by the user running berry-mcp, or choose another --config.`,
      { cause: error },
    );
  }
}
