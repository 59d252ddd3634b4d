import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { LogEvent } from '../bindings/index.js';
import { isBerryError, type BerryErrorCode } from '../errors.js';
import { createHost, type Host } from '../host.js';
import { parseCliArgs, USAGE, UsageError, type CliArgs } from './args.js';
import { authCommand } from './auth-command.js';
import { createElicitationForm } from './elicitation-form.js';
import { createCliMachine } from './machine.js';
import { ProgressBar } from './progress.js';
import { callBlocks, renderDescribe, renderList } from './render.js';

export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly cwd: string;
}

/** Codes that mean bad usage, bad config or an unreachable server: exit status 2. */
const USAGE_CODES: ReadonlySet<BerryErrorCode> = new Set<BerryErrorCode>([
  'MCP_CONFIG_INVALID',
  'MCP_ENV_MISSING',
  'MCP_UNKNOWN_SERVER',
  'MCP_UNKNOWN_TOOL',
  'MCP_SERVER_DISABLED',
  'MCP_INVALID_ARGUMENT',
  'MCP_CONNECT_FAILED',
  'MACHINE_UNAVAILABLE',
  'SCRIPT_SETUP_FAILED',
]);

/** Runs one berry-mcp command; resolves to the exit status. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === 'auth') return authCommand(argv.slice(1), io);
  let args: CliArgs;
  try {
    const parsed = parseCliArgs(argv);
    if (parsed === 'help') {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (parsed === 'version') {
      io.stdout.write('berry-mcp 0.1.0\n');
      return 0;
    }
    args = parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`berry-mcp: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }

  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let host: Host | undefined;
  try {
    const machine = createCliMachine(args);
    const cwd = args.cwd === undefined ? (args.ssh ? undefined : io.cwd) : resolveCwd(args.cwd, io.cwd, Boolean(args.ssh));
    host = createHost({
      machine,
      ...(cwd === undefined ? {} : { cwd }),
      ...(args.config === undefined ? {} : { configPath: args.config }),
      ...(args.verbose ? { onLog: (event: LogEvent) => printLog(io.stderr, event) } : {}),
      onElicitation: createElicitationForm({ input: io.stdin, output: io.stderr }),
    });
    return await runCommand(host, args, io, abort.signal);
  } catch (error) {
    return reportError(error, args, io);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await host?.close();
  }
}

function resolveCwd(cwd: string, base: string, remote: boolean): string {
  if (remote) {
    if (!cwd.startsWith('/')) throw new UsageError('--cwd must be an absolute path on the remote machine');
    return cwd;
  }
  return resolve(base, cwd);
}

async function runCommand(host: Host, args: CliArgs, io: CliIo, signal: AbortSignal): Promise<number> {
  const [first, second, third] = args.positionals;
  const print = (value: unknown, human: () => string): void => {
    io.stdout.write(args.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
  };
  switch (args.command) {
    case 'list': {
      const result = await host.list(first === undefined ? {} : { server: first }, { signal });
      print(result, () => renderList(result));
      return 0;
    }
    case 'describe': {
      const result = await host.describe(second === undefined ? { server: first! } : { server: first!, tool: second }, { signal });
      print(result, () => renderDescribe(result));
      return 0;
    }
    case 'call': {
      const toolArgs = parseJsonArgument(third);
      const bar = new ProgressBar(io.stderr);
      let result;
      try {
        result = await host.call(
          { server: first!, tool: second!, arguments: toolArgs },
          { signal, onProgress: (p) => bar.update(`${p.server}/${p.tool}`, p.progress, p.total, p.message) },
        );
      } finally {
        bar.clear();
      }
      if (args.json) {
        print(result, () => '');
      } else {
        const written = await writeBlocks(callBlocks(result), args.out, io);
        io.stdout.write(written);
      }
      return result.isError === true ? 1 : 0;
    }
    case 'run':
      return runScriptCommand(host, first!, args, io, signal);
    case 'typings': {
      const dts = await host.typings({ signal });
      if (args.output === undefined) {
        io.stdout.write(dts);
      } else {
        const path = resolve(io.cwd, args.output);
        await writeFile(path, dts);
        io.stderr.write(`berry-mcp: wrote ${path}\n`);
      }
      return 0;
    }
  }
}

async function runScriptCommand(host: Host, file: string, args: CliArgs, io: CliIo, signal: AbortSignal): Promise<number> {
  const code = file === '-' ? await readStream(io.stdin) : await readFile(resolve(io.cwd, file), 'utf8');
  const bar = new ProgressBar(io.stderr);
  const record = await host.run(code, {
    signal,
    filename: file === '-' ? 'stdin.js' : file,
    ...(args.timeoutSeconds === undefined ? {} : { timeoutMs: args.timeoutSeconds * 1000 }),
    ...(args.memoryMb === undefined ? {} : { memoryLimitMb: args.memoryMb }),
    onProgress: (p) => bar.update(p.fn, p.progress, p.total, p.message),
  });
  bar.clear();
  if (args.json) {
    io.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
    return record.ok ? 0 : 1;
  }
  for (const log of record.logs) io.stderr.write(`${log.level === 'log' ? '' : `[${log.level}] `}${log.text}\n`);
  const blocks = record.outputs.map((o) => (o.type === 'text' ? { text: o.text } : { image: { data: o.data, mimeType: o.mimeType } }));
  io.stdout.write(await writeBlocks(blocks, args.out, io));
  if (record.result !== undefined) io.stdout.write(`${JSON.stringify(record.result, null, 2)}\n`);
  if (record.error) {
    const where = record.error.line === undefined ? '' : ` (line ${record.error.line}${record.error.column === undefined ? '' : `, column ${record.error.column}`})`;
    io.stderr.write(`berry-mcp: script failed${where}: ${record.error.name}${record.error.code ? ` [${record.error.code}]` : ''}: ${record.error.message}\n`);
  }
  return record.ok ? 0 : 1;
}

async function writeBlocks(
  blocks: readonly { text?: string; image?: { data: string; mimeType: string } }[],
  outDir: string | undefined,
  io: CliIo,
): Promise<string> {
  let text = '';
  let dir: string | undefined;
  let count = 0;
  for (const block of blocks) {
    if (block.text !== undefined) {
      text += block.text.endsWith('\n') ? block.text : `${block.text}\n`;
    } else if (block.image) {
      dir ??= outDir === undefined ? await mkdtemp(join(tmpdir(), 'berry-mcp-')) : resolve(io.cwd, outDir);
      await mkdir(dir, { recursive: true });
      const ext = block.image.mimeType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
      const path = join(dir, `image-${++count}.${ext}`);
      await writeFile(path, Buffer.from(block.image.data, 'base64'));
      text += `[image ${block.image.mimeType} written to ${path}]\n`;
    }
  }
  return text;
}

function parseJsonArgument(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`arguments must be JSON, e.g. '{"query":"auth"}': ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`arguments must be a JSON object, e.g. '{"query":"auth"}'`);
  }
  return value as Record<string, unknown>;
}

async function readStream(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function printLog(stderr: Writable, event: LogEvent): void {
  const lines = event.message.replace(/\n$/, '').split('\n');
  for (const line of lines) stderr.write(`[${event.server}] ${event.kind === 'stderr' ? '' : `${event.kind}: `}${line}\n`);
}

function reportError(error: unknown, args: CliArgs, io: CliIo): number {
  if (error instanceof UsageError) {
    io.stderr.write(`berry-mcp: ${error.message}\n`);
    return 2;
  }
  if (!isBerryError(error)) {
    io.stderr.write(`berry-mcp: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ error: { name: error.name, code: error.code, message: error.message } }, null, 2)}\n`);
  }
  io.stderr.write(`berry-mcp: ${error.message} [${error.code}]\n`);
  return USAGE_CODES.has(error.code) ? 2 : 1;
}
