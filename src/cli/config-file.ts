import { resolveConfigPath } from '../config/index.js';
import type { Machine } from '../remote/index.js';
import type { CliArgs } from './cli-args.js';
import type { CliIo } from './context.js';

/**
 * The config file `add` and `remove` edit on the target machine, as the host would resolve it:
 * --config (relative to --cwd, else the current directory), by default ~/.config/berry/mcp.json.
 */
export async function configFileOf(args: CliArgs, io: CliIo, machine: Machine, signal: AbortSignal): Promise<{ readonly path: string; readonly text: string | undefined }> {
  const base = args.cwd !== undefined && args.cwd.startsWith('/') ? args.cwd : io.cwd;
  const path = resolveConfigPath(args.config, base, await machine.homeDir(signal));
  return { path, text: await machine.readFile(path, signal) };
}
