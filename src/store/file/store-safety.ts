/**
 * The token store trusts only what its user made: a token directory or file owned by someone
 * else, writable by group or others, or a symlink is refused, on the target machine, before
 * anything is read from or written into it. (Whoever can write the directory could swap a token
 * file for a link to anything, or read the tokens as they are written.)
 */
import { BerryError } from '../../common/errors.js';
import type { FileInfo, Machine } from '../../remote/machine/index.js';

export const TOKEN_DIR_MODE = 0o700;
export const TOKEN_FILE_MODE = 0o600;

/** What is wrong with `info` for a `kind` berry-mcp may use, or undefined when nothing is. */
function problem(info: FileInfo, kind: 'directory' | 'file', uid: number): string | undefined {
  if (info.type === 'symlink') return 'it is a symbolic link';
  if (info.type !== kind) return `it is not a ${kind === 'file' ? 'regular file' : 'directory'}`;
  // No POSIX owners or modes to check (Windows).
  if (uid < 0) return undefined;
  if (info.uid !== uid) return `it is owned by uid ${info.uid}, not by this user (uid ${uid})`;
  if ((info.mode & 0o022) !== 0)
    return `it is writable by ${(info.mode & 0o002) !== 0 ? 'every user' : 'its group'} (mode ${info.mode.toString(8).padStart(4, '0')})`;
  return undefined;
}

/**
 * The lstat of `path` when it is safe to use, undefined when there is nothing there; throws
 * MCP_TOKEN_STORE_UNSAFE naming the path and what is wrong with it otherwise.
 */
export async function checkStorePath(machine: Machine, path: string, kind: 'directory' | 'file', signal?: AbortSignal): Promise<FileInfo | undefined> {
  const info = await machine.fileInfo(path, signal);
  if (!info) return undefined;
  const wrong = problem(info, kind, await machine.userId(signal));
  if (wrong === undefined) return info;
  const fix = kind === 'directory' ? 'remove it (berry-mcp recreates it, mode 0700) or make it yours with mode 0700' : 'remove it (then sign in again)';
  throw new BerryError(
    'MCP_TOKEN_STORE_UNSAFE',
    `Refusing the OAuth token ${kind} ${path} on ${machine.identity}: ${wrong}. Tokens are kept only where no one else can change them; ${fix}.`,
  );
}
