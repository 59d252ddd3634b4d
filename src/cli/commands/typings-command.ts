import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CommandHandler } from '../context.js';

export const typingsCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const [server] = args.positionals;
  const dts = await (await host()).typings({ signal, ...(server === undefined ? {} : { server }) });
  if (args.output === undefined) {
    io.stdout.write(dts);
  } else {
    const path = resolve(io.cwd, args.output);
    await writeFile(path, dts);
    io.stderr.write(`berry-mcp: wrote ${path}\n`);
  }
  return 0;
};
