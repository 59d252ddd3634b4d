import type { LogEvent } from '../../mcp/index.js';
import { createHost, type Host } from '../../host.js';
import { generateToken, parseListen, RunService, serveHttp, serveStdio } from '../../serve/index.js';
import type { CommandHandler } from '../context.js';
import { createCliMachine, resolveCwd } from '../machine.js';
import { UsageError, type CliArgs } from '../usage.js';

interface ServeArgs {
  readonly http?: { host: string; port: number };
  readonly allowOrigins: readonly string[];
  readonly maxConcurrency?: number;
  readonly maxQueuedRuns?: number;
  readonly maxSessions?: number;
  readonly workers?: number;
}

/** The flags only serve reads (the table has checked each one's syntax and numbers). */
function serveArgs(args: CliArgs): ServeArgs {
  const { numbers, values } = args;
  const http = typeof values.http === 'string' ? values.http : undefined;
  if (numbers['max-sessions'] !== undefined && http === undefined) throw new UsageError('--max-sessions needs --http', 'serve');
  const allowOrigins = (values['allow-origin'] as readonly string[] | undefined) ?? [];
  if (allowOrigins.length > 0 && http === undefined) throw new UsageError('--allow-origin needs --http', 'serve');
  let listen;
  try {
    listen = http === undefined ? undefined : parseListen(http);
  } catch (error) {
    throw new UsageError((error as Error).message, 'serve');
  }
  return {
    ...(listen === undefined ? {} : { http: listen }),
    allowOrigins,
    ...(numbers['max-concurrency'] === undefined ? {} : { maxConcurrency: numbers['max-concurrency'] }),
    ...(numbers['max-queued-runs'] === undefined ? {} : { maxQueuedRuns: numbers['max-queued-runs'] }),
    ...(numbers['max-sessions'] === undefined ? {} : { maxSessions: numbers['max-sessions'] }),
    ...(numbers.workers === undefined ? {} : { workers: numbers.workers }),
  };
}

/** `berry-mcp serve …`: resolves to the exit status when the client goes (or on SIGINT/SIGTERM). */
export const serveCommand: CommandHandler = async ({ args, io, signal }) => {
  const serve = serveArgs(args);
  const say = (line: string): void => {
    io.stderr.write(`berry-mcp serve: ${line}\n`);
  };
  // Read once, then gone from this process's environment (the servers it starts never inherit it either).
  const givenToken = process.env['BERRY_SERVE_TOKEN'];
  delete process.env['BERRY_SERVE_TOKEN'];
  let host: Host;
  let service: RunService;
  let stop!: () => void;
  /** Set when a parked isolate ended serve (with --workers 0 it lives in this process). */
  let parked = false;
  try {
    const machine = await createCliMachine({ ssh: args.ssh, identity: args.identity, acceptHostKey: args.acceptHostKey });
    const cwd = args.cwd === undefined ? (args.ssh ? undefined : io.cwd) : resolveCwd(args.cwd, io.cwd, Boolean(args.ssh));
    host = createHost({
      machine,
      ...(cwd === undefined ? {} : { cwd }),
      ...(args.config === undefined ? {} : { configPath: args.config }),
      ...(args.verbose ? { onLog: (event: LogEvent) => say(`[${event.server}] ${event.kind}: ${event.message.replace(/\n$/, '')}`) } : {}),
      // Only runs in this process (--workers 0) can park an isolate here; each would keep its memory until serve ends.
      onParkedIsolate: () => {
        say(
          "a script ran out of memory in a way V8 cannot recover from, in serve's own process (--workers 0): its isolate holds its memory " +
            'until the process ends, so serve stops now (runs in flight are cancelled). Start it again; with --workers 1 or more such a ' +
            'script costs only its worker process, which serve replaces.',
        );
        parked = true;
        stop();
      },
    });
    service = new RunService({
      host,
      ...(serve.maxConcurrency === undefined ? {} : { maxConcurrency: serve.maxConcurrency }),
      ...(serve.maxQueuedRuns === undefined ? {} : { maxQueuedRuns: serve.maxQueuedRuns }),
      ...(serve.workers === undefined ? {} : { workers: serve.workers }),
      confirmWrites: args.confirmWrites,
      signatures: args.values.signatures === true,
      ...(args.timeoutSeconds === undefined ? {} : { timeoutSeconds: args.timeoutSeconds }),
      ...(args.memoryMb === undefined ? {} : { memoryLimitMb: args.memoryMb }),
      ...(args.numbers['output-limit'] === undefined ? {} : { outputLimitBytes: args.numbers['output-limit'] }),
      ...(args.verbose ? { onWarning: say } : {}),
    });
  } catch (error) {
    say((error as Error).message);
    return 2;
  }

  const stopped = new Promise<void>((r) => (stop = r));
  // main turns SIGINT and SIGTERM into this signal.
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  try {
    if (serve.http) {
      const token = givenToken || generateToken();
      let serving;
      try {
        serving = await serveHttp(service, {
          listen: serve.http,
          token,
          allowOrigins: [...serve.allowOrigins],
          ...(serve.maxSessions === undefined ? {} : { maxSessions: serve.maxSessions }),
        });
      } catch (error) {
        say(`cannot listen on ${serve.http.host}:${serve.http.port}: ${(error as Error).message}`);
        return 2;
      }
      say(`listening on ${serving.url}`);
      if (!isLoopbackHost(serve.http.host)) say(`${serve.http.host} is reachable from other machines: anyone with the token can run code here`);
      if (!givenToken) say(`token (send Authorization: Bearer <token>; set BERRY_SERVE_TOKEN to choose it): ${token}`);
      await stopped;
      await serving.close();
    } else {
      // The client closing our stdin (or our stdout breaking) is the end of the session.
      io.stdin.on('end', stop);
      io.stdin.on('close', stop);
      io.stdout.on('error', stop);
      const serving = serveStdio(service, io.stdin, io.stdout, args.verbose ? say : undefined);
      void serving.closed.then(stop);
      await stopped;
      await serving.close();
    }
    return parked ? 1 : 0;
  } finally {
    signal.removeEventListener('abort', stop);
    await service.close();
    await host.close();
  }
};

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
