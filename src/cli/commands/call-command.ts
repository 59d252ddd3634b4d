import { ImageWriter, json, renderBlocks } from '../output/blocks.js';
import { isKeyValueForm, parseJsonArguments, parseKeyValueArguments } from '../args/call-arguments.js';
import type { CommandHandler } from '../context.js';
import { ProgressLines } from '../output/progress.js';
import { callBlocks } from '../output/render.js';

export const callCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const [server, tool, ...words] = args.positionals as [string, string, ...string[]];
  const h = await host();
  let toolArgs: Record<string, unknown>;
  if (isKeyValueForm(words)) {
    // key=value needs the tool's schema to type the values; the catalog is cached for the call.
    // describe checks the name (filters included; closest names first when it is unknown).
    const described = await h.describe({ server, tool, schemas: true }, { signal });
    toolArgs = parseKeyValueArguments(words, ('inputSchema' in described ? described.inputSchema : {}) as Record<string, unknown>, tool);
  } else {
    toolArgs = parseJsonArguments(words);
  }
  const progress = new ProgressLines(io.stderr);
  let result;
  try {
    result = await h.call(
      { server, tool, arguments: toolArgs },
      { signal, onProgress: (p) => progress.update(0, `${p.server}/${p.tool}`, p.progress, p.total, p.message) },
    );
  } finally {
    progress.clear();
  }
  io.stdout.write(args.json ? json(result) : await renderBlocks(callBlocks(result), new ImageWriter(args.out, io.cwd)));
  return result.isError === true ? 1 : 0;
};
