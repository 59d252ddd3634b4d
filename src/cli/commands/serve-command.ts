import type { LogEvent } from '../../bindings/index.js';
import { createHost, type Host } from '../../host.js';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateToken, httpHolders, parseListen, parseServeTokens, RunService, serveHttp, serveStdio, type ServeToken } from '../../serve/index.js';
import type { CommandHandler } from '../context.js';
import { createCliMachine, resolveCwd } from '../machine.js';
import { UsageError, type CliArgs } from '../usage.js';
import { storeChoice } from '../args/store-choice.js';

interface ServeArgs {
  readonly http?: { host: string; port: number };
  readonly tokenFile?: string;
  readonly allowOrigins: readonly string[];
  readonly maxConcurrency?: number;
  readonly maxQueuedRuns?: number;
  readonly workers?: number;
  /** The caps of serveHttp that the flags gave (each needs --http). */
  readonly httpCaps: Partial<Record<(typeof HTTP_CAPS)[keyof typeof HTTP_CAPS], number>>;
}

/** serve's flags that only HTTP has a use for, and serveHttp's names for them. */
const HTTP_CAPS = {
  'max-sessions': 'maxSessions',
  'max-holder-sessions': 'maxHolderSessions',
  'max-client-concurrency': 'maxClientConcurrency',
  'max-holder-concurrency': 'maxHolderConcurrency',
  'max-holder-streams': 'maxHolderStreams',
} as const;

/** A token file is a few lines; past this it is not one. */
const MAX_TOKEN_FILE_BYTES = 1024 * 1024;

/** The flags only serve reads (the table has checked each one's syntax and numbers). */
function serveArgs(args: CliArgs): ServeArgs {
  const { numbers, values } = args;
  const http = typeof values.http === 'string' ? values.http : undefined;
  const httpCaps: Record<string, number> = {};
  for (const [flag, name] of Object.entries(HTTP_CAPS) as [keyof typeof HTTP_CAPS, string][]) {
    const value = numbers[flag];
    if (value === undefined) continue;
    if (http === undefined) throw new UsageError(`--${flag} needs --http`, 'serve');
    httpCaps[name] = value;
  }
  const tokenFile = typeof values['token-file'] === 'string' ? values['token-file'] : undefined;
  if (tokenFile !== undefined && http === undefined) throw new UsageError('--token-file needs --http', 'serve');
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
    ...(tokenFile === undefined ? {} : { tokenFile }),
    allowOrigins,
    httpCaps,
    ...(numbers['max-concurrency'] === undefined ? {} : { maxConcurrency: numbers['max-concurrency'] }),
    ...(numbers['max-queued-runs'] === undefined ? {} : { maxQueuedRuns: numbers['max-queued-runs'] }),
    ...(numbers.workers === undefined ? {} : { workers: numbers.workers }),
  };
}

/** The tokens of `path` (relative to `cwd`), read whole only when it is small; an error says what is wrong, never a token. */
function readTokenFile(path: string, cwd: string, say: (line: string) => void): ServeToken[] {
  const file = resolve(cwd, path);
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    throw new Error(`--token-file ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (!stat.isFile() || stat.size > MAX_TOKEN_FILE_BYTES) throw new Error(`--token-file ${path}: not a file of at most ${MAX_TOKEN_FILE_BYTES} bytes`);
  // Warned, not refused: mounted secrets are often 0644 in containers, readable by their one user anyway.
  if ((stat.mode & 0o077) !== 0) say(`--token-file ${path} can be read by other users (chmod 600 it)`);
  return parseServeTokens(readFileSync(file, 'utf8'), `--token-file ${path}`);
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
  if (serve.tokenFile !== undefined && givenToken) {
    throw new UsageError('--token-file and BERRY_SERVE_TOKEN both give tokens: unset BERRY_SERVE_TOKEN, or add it to the file as a line of its own', 'serve');
  }
  let host: Host | undefined;
  let service: RunService | undefined;
  let tokens: { readonly token: string } | { readonly tokens: ServeToken[] } | undefined;
  let stop!: () => void;
  /** Set when a parked isolate ended serve (with --workers 0 it lives in this process). */
  let parked = false;
  try {
    if (serve.tokenFile !== undefined) tokens = { tokens: readTokenFile(serve.tokenFile, io.cwd, say) };
    else if (serve.http) tokens = { token: givenToken || generateToken() };
    const machine = await createCliMachine({ ssh: args.ssh, identity: args.identity, acceptHostKey: args.acceptHostKey });
    const cwd = args.cwd === undefined ? (args.ssh ? undefined : io.cwd) : resolveCwd(args.cwd, io.cwd, Boolean(args.ssh));
    host = createHost({
      machine,
      ...(cwd === undefined ? {} : { cwd }),
      ...(args.config === undefined ? {} : { configPath: args.config }),
      ...storeChoice(args),
      ...(args.verbose ? { onLog: (event: LogEvent) => say(`[${event.server}] ${event.kind}: ${event.message.replace(/\n$/, '')}`) } : {}),
      // Spans carry argument values only when asked (docs/observability.md).
      ...(args.values['otel-capture-arguments'] === true ? { otel: { captureArguments: true } } : {}),
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
      ...(args.numbers['state-idle'] === undefined ? {} : { stateIdleSeconds: args.numbers['state-idle'] }),
      confirmWrites: args.confirmWrites,
      ...(args.values['no-check'] === true ? { check: 'off' as const } : {}),
      signatures: args.values.signatures === true,
      ...(args.timeoutSeconds === undefined ? {} : { timeoutSeconds: args.timeoutSeconds }),
      ...(args.memoryMb === undefined ? {} : { memoryLimitMb: args.memoryMb }),
      ...(args.numbers['output-limit'] === undefined ? {} : { outputLimitBytes: args.numbers['output-limit'] }),
      ...(args.verbose ? { onWarning: say } : {}),
    });
    // The caps are checked against the slots before anything listens.
    if (tokens) httpHolders({ ...tokens, ...serve.httpCaps }, service.queue.limit);
  } catch (error) {
    say((error as Error).message);
    await service?.close();
    await host?.close();
    return 2;
  }

  const stopped = new Promise<void>((r) => (stop = r));
  // main turns SIGINT and SIGTERM into this signal.
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  try {
    if (serve.http && tokens) {
      let serving;
      try {
        serving = await serveHttp(service, { listen: serve.http, ...tokens, allowOrigins: [...serve.allowOrigins], ...serve.httpCaps });
      } catch (error) {
        say(`cannot listen on ${serve.http.host}:${serve.http.port}: ${(error as Error).message}`);
        return 2;
      }
      say(`listening on ${serving.url}`);
      if (!isLoopbackHost(serve.http.host)) say(`${serve.http.host} is reachable from other machines: anyone with the token can run code here`);
      if ('tokens' in tokens)
        say(`${tokens.tokens.length} token${tokens.tokens.length === 1 ? '' : 's'} from --token-file, each a holder: ${holderNames(tokens.tokens)}`);
      else if (!givenToken) say(`token (send Authorization: Bearer <token>; set BERRY_SERVE_TOKEN to choose it): ${tokens.token}`);
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

function holderNames(tokens: readonly ServeToken[]): string {
  const names = tokens
    .slice(0, 8)
    .map((t) => t.name)
    .join(', ');
  return tokens.length > 8 ? `${names}, … (${tokens.length - 8} more)` : names;
}
