/**
 * Paths on the target machine, which may be a remote Linux box: always POSIX rules, never the
 * local process's working directory.
 */
import * as posix from 'node:path/posix';

/** Where the config file is unless another path is chosen: on the target machine. */
export const DEFAULT_CONFIG_PATH = '~/.config/berry/mcp.json';

/** True for `~` and `~/…`, which mean the home directory (`~user` is not supported: relative). */
export function isHomeRelative(path: string): boolean {
  return path === '~' || path.startsWith('~/');
}

/**
 * Makes `path` absolute: `~` and `~/…` against `home`, a relative path against `base`; the
 * result is normalized. `base` and `home` must be absolute (only used when needed).
 */
export function resolveMachinePath(path: string, base: string, home: string | undefined): string {
  if (isHomeRelative(path)) {
    if (home === undefined || !posix.isAbsolute(home)) {
      throw new TypeError(`The home directory must be an absolute path, got ${JSON.stringify(home)}`);
    }
    return posix.join(home, path.slice(1));
  }
  if (posix.isAbsolute(path)) return posix.normalize(path);
  if (!posix.isAbsolute(base)) {
    throw new TypeError(`The working directory must be an absolute path, got ${JSON.stringify(base)}`);
  }
  return posix.join(base, path);
}

/**
 * The absolute path of the config file on the machine. `configPath` undefined or blank means
 * `~/.config/berry/mcp.json`; a leading `~` or `~/` means `home`; a relative path resolves
 * against `cwd`.
 */
export function resolveConfigPath(configPath: string | undefined, cwd: string, home: string): string {
  return resolveMachinePath(configPathOrDefault(configPath), cwd, home);
}

/** `configPath`, or the default when it is undefined or blank. */
export function configPathOrDefault(configPath: string | undefined): string {
  return configPath === undefined || configPath.trim() === '' ? DEFAULT_CONFIG_PATH : configPath;
}
