import type { CommandHandler } from '../context.js';
import { json } from '../output/blocks.js';
import { renderList } from '../output/render.js';

/** `berry-mcp check [SERVER]`: list, always dialing; exit 2 when a checked server failed. */
export const checkCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const [server] = args.positionals;
  const result = await (await host()).list({ ...(server === undefined ? {} : { server }), refresh: true }, { signal });
  io.stdout.write(args.json ? json(result) : `${renderList(result)}\n`);
  return result.servers.some((s) => s.status === 'error' || s.status === 'auth_required') ? 2 : 0;
};
