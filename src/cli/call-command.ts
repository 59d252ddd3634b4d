import { ImageWriter, json, renderBlocks } from './blocks.js';
import type { CommandHandler } from './context.js';
import { ProgressBar } from './progress.js';
import { callBlocks } from './render.js';
import { UsageError } from './args.js';

export const callCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const [server, tool, ...rest] = args.positionals as [string, string, ...string[]];
  const toolArgs = parseJsonArgument(rest[0]);
  const bar = new ProgressBar(io.stderr);
  let result;
  try {
    result = await (await host()).call(
      { server, tool, arguments: toolArgs },
      { signal, onProgress: (p) => bar.update(`${p.server}/${p.tool}`, p.progress, p.total, p.message) },
    );
  } finally {
    bar.clear();
  }
  io.stdout.write(args.json ? json(result) : await renderBlocks(callBlocks(result), new ImageWriter(args.out, io.cwd)));
  return result.isError === true ? 1 : 0;
};

function parseJsonArgument(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`arguments must be JSON, e.g. '{"query":"auth"}': ${(error as Error).message}`, 'call');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`arguments must be a JSON object, e.g. '{"query":"auth"}'`, 'call');
  }
  return value as Record<string, unknown>;
}
