import { readConfigFile, resolveConfigPath } from '../config/index.js';
import type { Machine } from '../remote/machine/index.js';
import type { CliArgs } from './usage.js';
import type { CliIo } from './context.js';
import { resolveCwd } from './machine.js';

/**
 * The config file `add` and `remove` edit on the target machine, as the host would resolve it:
 * --config (relative to --cwd, else the current directory; for add always the current directory),
 * by default ~/.config/berry/mcp.json.
 */
export async function configFileOf(
  args: CliArgs,
  io: CliIo,
  machine: Machine,
  signal: AbortSignal,
): Promise<{ readonly path: string; readonly text: string | undefined }> {
  // add's --cwd is the new server's working directory, not the session's: its --config starts here.
  const base = args.command === 'add' || args.cwd === undefined ? io.cwd : resolveCwd(args.cwd, io.cwd, args.ssh !== undefined);
  const path = resolveConfigPath(args.config, base, await machine.homeDir(signal));
  return { path, text: await readConfigFile(machine, path, signal) };
}
