import type { CommandHandler } from '../context.js';
import { json } from '../output/blocks.js';
import { renderDescribe } from '../output/render.js';

export const describeCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const [server, tool] = args.positionals as [string, string | undefined];
  const result = await (await host()).describe(tool === undefined ? { server } : { server, tool, ...(args.schemas ? { schemas: true } : {}) }, { signal });
  io.stdout.write(args.json ? json(result) : `${renderDescribe(result)}\n`);
  return 0;
};
