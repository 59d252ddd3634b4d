import type { CommandHandler } from '../context.js';
import { json } from '../output/blocks.js';
import { renderList } from '../output/render.js';

export const listCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const [server] = args.positionals;
  const result = await (await host()).list({ ...(server === undefined ? {} : { server }), ...(args.refresh ? { refresh: true } : {}) }, { signal });
  io.stdout.write(args.json ? json(result) : `${renderList(result)}\n`);
  return 0;
};
