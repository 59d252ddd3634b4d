import { ImageWriter, json, renderBlocks } from './blocks.js';
import { isKeyValueForm, parseJsonArguments, parseKeyValueArguments } from './call-arguments.js';
import type { CommandHandler } from './context.js';
import { BerryError } from '../errors.js';
import { ProgressLines } from './progress.js';
import { didYouMean } from './suggest.js';
import { callBlocks } from './render.js';

export const callCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const [server, tool, ...words] = args.positionals as [string, string, ...string[]];
  const h = await host();
  let toolArgs: Record<string, unknown>;
  if (isKeyValueForm(words)) {
    // key=value needs the tool's schema to type the values; the catalog is cached for the call.
    const tools = await h.withServer(server, (connection) => connection.listTools(signal), signal);
    const found = tools.find((t) => t.name === tool);
    // The schema is needed to type the values: without the tool there is nothing to call.
    if (found === undefined) {
      const names = tools.map((t) => t.name);
      throw new BerryError('MCP_UNKNOWN_TOOL', `Server "${server}" has no tool "${tool}".${didYouMean(tool, names)} Its tools: ${names.join(', ')}.`);
    }
    toolArgs = parseKeyValueArguments(words, found.inputSchema as Record<string, unknown>, tool);
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
