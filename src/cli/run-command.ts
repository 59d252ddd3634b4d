import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ImageWriter, json, readStream, renderBlocks } from './blocks.js';
import type { CommandHandler } from './context.js';
import { ProgressBar } from './progress.js';

export const runCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const file = args.positionals[0]!;
  const code = file === '-' ? await readStream(io.stdin) : await readFile(resolve(io.cwd, file), 'utf8');
  const bar = new ProgressBar(io.stderr);
  const record = await (await host()).run(code, {
    signal,
    filename: file === '-' ? 'stdin.js' : file,
    ...(args.timeoutSeconds === undefined ? {} : { timeoutMs: args.timeoutSeconds * 1000 }),
    ...(args.memoryMb === undefined ? {} : { memoryLimitMb: args.memoryMb }),
    onProgress: (p) => bar.update(p.fn, p.progress, p.total, p.message),
  });
  bar.clear();
  if (args.json) {
    io.stdout.write(json(record));
    return record.ok ? 0 : 1;
  }
  for (const log of record.logs) io.stderr.write(`${log.level === 'log' ? '' : `[${log.level}] `}${log.text}\n`);
  const blocks = record.outputs.map((o) => (o.type === 'text' ? { text: o.text } : { image: { data: o.data, mimeType: o.mimeType } }));
  io.stdout.write(await renderBlocks(blocks, new ImageWriter(args.out, io.cwd)));
  if (record.result !== undefined) io.stdout.write(json(record.result));
  if (record.error) {
    const where = record.error.line === undefined ? '' : ` (line ${record.error.line}${record.error.column === undefined ? '' : `, column ${record.error.column}`})`;
    io.stderr.write(`berry-mcp: script failed${where}: ${record.error.name}${record.error.code ? ` [${record.error.code}]` : ''}: ${record.error.message}\n`);
  }
  return record.ok ? 0 : 1;
};
