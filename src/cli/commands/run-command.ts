import { resolve } from 'node:path';
import { UsageError } from '../usage.js';
import { nodeFsPromises } from '../../common/lazy-node.js';
import { ImageWriter, json, readStream } from '../output/blocks.js';
import type { CommandHandler } from '../context.js';
import { ProgressLines } from '../output/progress.js';
import type { RunEntry, RunError } from '../../runtime/index.js';
import { terminalSafe } from '../output/terminal-safe.js';
import { cliWording } from '../output/wording.js';

export const runCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const file = args.positionals[0]!;
  // `run -` typed at a terminal waits for the script: say so rather than seem to hang.
  if (file === '-' && io.stdin.isTTY) io.stderr.write('berry-mcp: reading the script from the terminal; end it with Ctrl-D\n');
  const code = file === '-' ? await readStream(io.stdin) : await readScript(resolve(io.cwd, file), file);
  const progress = new ProgressLines(io.stderr);
  const images = new ImageWriter(args.out, io.cwd);
  // Entries print as the script makes them; images are written in order, one after the other.
  // A script's text is for people here: control characters are shown, not sent to the terminal.
  let printing: Promise<void> = Promise.resolve();
  const stream = (entry: RunEntry): void => {
    printing = printing.then(async () => {
      if (entry.kind === 'log') {
        progress.print(io.stderr, `${entry.log.level === 'log' ? '' : `[${entry.log.level}] `}${terminalSafe(entry.log.text)}\n`);
      } else if (entry.output.type === 'text') {
        const text = terminalSafe(entry.output.text);
        progress.print(io.stdout, text.endsWith('\n') ? text : `${text}\n`);
      } else {
        const path = await images.write(entry.output);
        progress.print(io.stdout, `[image ${entry.output.mimeType} written to ${path}]\n`);
      }
    });
  };
  let ran;
  try {
    ran = await (await host()).run(code, {
      signal,
      filename: file === '-' ? 'stdin.js' : file,
      ...(args.timeoutSeconds === undefined ? {} : { timeoutMs: args.timeoutSeconds * 1000 }),
      ...(args.memoryMb === undefined ? {} : { memoryLimitMb: args.memoryMb }),
      ...(args.values['no-check'] === true ? { check: 'off' as const } : {}),
      onProgress: (p) => progress.update(p.call, p.label ?? p.fn, p.progress, p.total, p.message),
      onCallEnd: (c) => progress.remove(c.call),
      ...(args.json ? {} : { onOutput: stream }),
    });
  } catch (error) {
    // The run's own failure is the one to report; a failed image write must not go unhandled.
    printing.catch(() => {});
    throw error;
  } finally {
    progress.clear();
  }
  await printing;
  // Limits are named by the flags that set them here (--timeout), not the library's option names.
  const record = ran.error === undefined ? ran : { ...ran, error: { ...ran.error, message: cliWording(ran.error.message) } };
  if (args.json) {
    io.stdout.write(json(record));
    return record.ok ? 0 : 1;
  }
  if (record.result !== undefined) io.stdout.write(terminalSafe(json(record.result)));
  if (record.error) io.stderr.write(describeFailure(record.error));
  return record.ok ? 0 : 1;
};

async function readScript(path: string, given: string): Promise<string> {
  try {
    return await nodeFsPromises().readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`no script at ${given} (${path} does not exist)`, 'run');
    if (code === 'EISDIR') throw new UsageError(`${given} is a directory, not a script file`, 'run');
    throw new UsageError(`cannot read ${given}: ${(error as Error).message}`, 'run');
  }
}

/** `script failed (line 2, column 8): TypeError: …` and the script's own frames under it. */
function describeFailure(error: RunError): string {
  const where = error.line === undefined ? '' : ` (line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`})`;
  const head = `berry-mcp: script failed${where}: ${error.name}${error.code ? ` [${error.code}]` : ''}: ${error.message}\n`;
  const frames = error.stack?.split('\n') ?? [];
  // One frame says no more than the position already does.
  return terminalSafe(frames.length > 1 ? head + frames.map((f) => `    ${f}\n`).join('') : head);
}
