import { resolve } from 'node:path';
import { resolveConfigPath } from '../config/index.js';
import type { Machine } from '../remote/index.js';
import type { CliArgs } from './cli-args.js';
import type { CliIo } from './context.js';

/**
 * The config file `add` and `remove` edit on the target machine, as the host would resolve it:
 * --config (relative to --cwd, else the current directory), by default ~/.config/berry/mcp.json.
 */
export async function configFileOf(args: CliArgs, io: CliIo, machine: Machine, signal: AbortSignal): Promise<{ readonly path: string; readonly text: string | undefined }> {
  const base = baseDir(args, io.cwd);
  const path = resolveConfigPath(args.config, base, await machine.homeDir(signal));
  return { path, text: await machine.readFile(path, signal) };
}

/** Where a relative --config starts: --cwd as the host takes it (a local relative one against here); `~/…`, `${VAR}…` and a relative one over SSH mean a place only the target machine knows, so the current directory. */
function baseDir(args: CliArgs, here: string): string {
  const cwd = args.cwd;
  if (cwd === undefined || cwd.startsWith('~') || cwd.startsWith('${')) return here;
  if (cwd.startsWith('/')) return cwd;
  return args.ssh === undefined ? resolve(here, cwd) : here;
}
