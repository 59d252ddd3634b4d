import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { LogEvent } from '../mcp/index.js';
import { createHost, type Host } from '../host.js';
import { generateToken, parseListen, RunService, serveHttp } from '../serve/index.js';
import type { CliIo } from './context.js';
import { createCliMachine } from './machine.js';

export const SERVE_USAGE = `Usage: berry-mcp serve [options]     code mode as an MCP server (one tool: run)

  --http [HOST:]PORT    serve Streamable HTTP at /mcp instead of stdio (host default 127.0.0.1);
                        needs Authorization: Bearer $BERRY_SERVE_TOKEN (or the token printed at start)
  --allow-origin ORIGIN allow browser requests from this Origin too (repeatable; loopback is allowed)
  --max-concurrency N   runs executing at once; the rest queue, each client in turn (default 4)
  --max-queued-runs N   runs one client may have waiting; more are refused SERVE_QUEUE_FULL (default 8)
  --max-sessions N      HTTP sessions at once; a new one evicts the oldest idle one, else 503 (default 16)
  --timeout SECONDS     a run's default and maximum wall-clock limit (default 300)
  --memory MB           isolate memory limit of each run (default 128)
  --output-limit BYTES  output budget of each run: text, images and logs together (default 1048576)
  --confirm-writes      ask the client's user (elicitation) before each call to a tool that may write;
                        refused when the client cannot be asked
  --config, --cwd, --ssh, --identity, --accept-host-key, --verbose   as for the other commands`;

class ServeUsageError extends Error {}

interface ServeArgs {
  readonly config?: string;
  readonly cwd?: string;
  readonly ssh?: string;
  readonly identity?: string;
  readonly acceptHostKey: boolean;
  readonly verbose: boolean;
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
  readonly outputLimitBytes?: number;
  readonly http?: { host: string; port: number };
  readonly allowOrigins: string[];
  readonly maxConcurrency: number;
  readonly maxQueuedRuns?: number;
  readonly maxSessions?: number;
  readonly confirmWrites: boolean;
}

/** `berry-mcp serve …` (argv without the command); resolves to the exit status when the client goes. */
export async function serveCommand(argv: readonly string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: ServeArgs | 'help';
  try {
    args = parseServeArgs(argv);
  } catch (error) {
    io.stderr.write(`berry-mcp serve: ${(error as Error).message}\n\n${SERVE_USAGE}\n`);
    return 2;
  }
  if (args === 'help') {
    io.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  const say = (line: string): void => {
    io.stderr.write(`berry-mcp serve: ${line}\n`);
  };
  // Read once, then gone from this process's environment (the servers it starts never inherit it either).
  const givenToken = env['BERRY_SERVE_TOKEN'];
  delete process.env['BERRY_SERVE_TOKEN'];
  let host: Host;
  let service: RunService;
  try {
    const machine = await createCliMachine({ ssh: args.ssh, identity: args.identity, acceptHostKey: args.acceptHostKey });
    const cwd = args.cwd === undefined ? (args.ssh ? undefined : io.cwd) : args.ssh ? remoteCwd(args.cwd) : resolve(io.cwd, args.cwd);
    host = createHost({
      machine,
      ...(cwd === undefined ? {} : { cwd }),
      ...(args.config === undefined ? {} : { configPath: args.config }),
      ...(args.verbose ? { onLog: (event: LogEvent) => say(`[${event.server}] ${event.kind}: ${event.message.replace(/\n$/, '')}`) } : {}),
    });
    service = new RunService({
      host,
      maxConcurrency: args.maxConcurrency,
      ...(args.maxQueuedRuns === undefined ? {} : { maxQueuedRuns: args.maxQueuedRuns }),
      confirmWrites: args.confirmWrites,
      ...(args.timeoutSeconds === undefined ? {} : { timeoutSeconds: args.timeoutSeconds }),
      ...(args.memoryMb === undefined ? {} : { memoryLimitMb: args.memoryMb }),
      ...(args.outputLimitBytes === undefined ? {} : { outputLimitBytes: args.outputLimitBytes }),
      ...(args.verbose ? { onWarning: say } : {}),
    });
  } catch (error) {
    say((error as Error).message);
    return 2;
  }

  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    if (args.http) {
      const token = givenToken || generateToken();
      let serving;
      try {
        serving = await serveHttp(service, {
          listen: args.http,
          token,
          allowOrigins: args.allowOrigins,
          ...(args.maxSessions === undefined ? {} : { maxSessions: args.maxSessions }),
        });
      } catch (error) {
        say(`cannot listen on ${args.http.host}:${args.http.port}: ${(error as Error).message}`);
        return 2;
      }
      say(`listening on ${serving.url}`);
      if (!isLoopbackHost(args.http.host)) say(`${args.http.host} is reachable from other machines: anyone with the token can run code here`);
      if (!givenToken) say(`token (send Authorization: Bearer <token>; set BERRY_SERVE_TOKEN to choose it): ${token}`);
      await stopped;
      await serving.close();
    } else {
      const transport = new StdioServerTransport(io.stdin, io.stdout);
      // The client closing our stdin (or our stdout breaking) is the end of the session.
      io.stdin.on('end', stop);
      io.stdin.on('close', stop);
      io.stdout.on('error', stop);
      const server = await service.connect(transport);
      server.onclose = chain(server.onclose, stop);
      await stopped;
    }
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await service.close();
    await host.close();
  }
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}

function remoteCwd(cwd: string): string {
  if (!cwd.startsWith('/')) throw new ServeUsageError('--cwd must be an absolute path on the remote machine');
  return cwd;
}

function parseServeArgs(argv: readonly string[]): ServeArgs | 'help' {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string' },
      cwd: { type: 'string' },
      ssh: { type: 'string' },
      identity: { type: 'string' },
      'accept-host-key': { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
      timeout: { type: 'string' },
      memory: { type: 'string' },
      http: { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      'max-concurrency': { type: 'string' },
      'max-queued-runs': { type: 'string' },
      'max-sessions': { type: 'string' },
      'output-limit': { type: 'string' },
      'confirm-writes': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  if (positionals.length > 0) throw new ServeUsageError(`"serve" takes no arguments, got ${positionals.map((p) => `"${p}"`).join(' ')}`);
  const maxConcurrency = whole('--max-concurrency', values['max-concurrency']) ?? 4;
  const maxQueuedRuns = whole('--max-queued-runs', values['max-queued-runs']);
  const maxSessions = whole('--max-sessions', values['max-sessions']);
  if (maxSessions !== undefined && values.http === undefined) throw new ServeUsageError('--max-sessions needs --http');
  const allowOrigins = values['allow-origin'] ?? [];
  if (allowOrigins.length > 0 && values.http === undefined) throw new ServeUsageError('--allow-origin needs --http');
  const timeoutSeconds = positive('--timeout', values.timeout);
  const memoryMb = positive('--memory', values.memory);
  const outputLimitBytes = positive('--output-limit', values['output-limit']);
  if (outputLimitBytes !== undefined && (!Number.isInteger(outputLimitBytes) || outputLimitBytes < 1024)) {
    throw new ServeUsageError(`--output-limit needs a whole number of bytes, at least 1024, got ${outputLimitBytes}`);
  }
  return {
    ...(values.config === undefined ? {} : { config: values.config }),
    ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
    ...(values.ssh === undefined ? {} : { ssh: values.ssh }),
    ...(values.identity === undefined ? {} : { identity: values.identity }),
    acceptHostKey: values['accept-host-key'] ?? false,
    verbose: values.verbose ?? false,
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    ...(memoryMb === undefined ? {} : { memoryMb }),
    ...(outputLimitBytes === undefined ? {} : { outputLimitBytes }),
    ...(values.http === undefined ? {} : { http: parseListen(values.http) }),
    allowOrigins,
    maxConcurrency,
    ...(maxQueuedRuns === undefined ? {} : { maxQueuedRuns }),
    ...(maxSessions === undefined ? {} : { maxSessions }),
    confirmWrites: values['confirm-writes'] ?? false,
  };
}

function whole(flag: string, value: string | undefined): number | undefined {
  const n = positive(flag, value);
  if (n !== undefined && !Number.isInteger(n)) throw new ServeUsageError(`${flag} needs a whole number, got ${n}`);
  return n;
}

function positive(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new ServeUsageError(`${flag} needs a positive number, got "${value}"`);
  return n;
}
