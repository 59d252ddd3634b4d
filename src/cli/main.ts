import type { Writable } from 'node:stream';
import type { LogEvent } from '../bindings/index.js';
import { isBerryError, type BerryErrorCode } from '../common/errors.js';
import { VERSION } from '../common/version.js';
import type { Host, HostOptions } from '../host.js';
import { parseCliArgs } from './args/args.js';
import { COMMANDS, type CommandName } from './commands.js';
import type { CliIo, CommandContext } from './context.js';
import { commandHelp, overviewHelp } from './help.js';
import { terminalSafe } from './output/terminal-safe.js';
import { cliWording, serverHint } from './output/wording.js';
import { UsageError, type CliArgs } from './usage.js';
import { otelRequested } from './otel-env.js';
import { storeChoice } from './args/store-choice.js';

export type { CliIo } from './context.js';

/** Codes that mean bad usage, bad config or an unreachable server: exit status 2. */
const USAGE_CODES: ReadonlySet<BerryErrorCode> = new Set<BerryErrorCode>([
  'MCP_CONFIG_INVALID',
  'MCP_ENV_MISSING',
  'MCP_UNKNOWN_SERVER',
  'MCP_UNKNOWN_TOOL',
  'MCP_UNKNOWN_RESOURCE',
  'MCP_UNKNOWN_PROMPT',
  'MCP_SERVER_DISABLED',
  'MCP_INVALID_ARGUMENT',
  'MCP_CONNECT_FAILED',
  'MCP_PROTOCOL_VERSION_UNSUPPORTED',
  'MCP_AUTH_REQUIRED',
  'MCP_AUTH_RESPONSE_TOO_LARGE',
  'MCP_AUTH_ISSUER_MISMATCH',
  'MCP_TOKEN_STORE_UNSAFE',
  'BERRY_STORE_UNAVAILABLE',
  'BERRY_STORE_KEY_INVALID',
  'BERRY_STORE_RECORD_INVALID',
  'MACHINE_UNAVAILABLE',
  'SCRIPT_SETUP_FAILED',
]);

/** Runs one berry-mcp command; resolves to the exit status. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let args: CliArgs;
  try {
    const parsed = parseCliArgs(argv);
    if ('version' in parsed) {
      io.stdout.write(`berry-mcp ${VERSION}\n`);
      return 0;
    }
    if ('help' in parsed) {
      io.stdout.write(`${parsed.command === undefined ? overviewHelp() : commandHelp(parsed.command)}\n`);
      return 0;
    }
    args = parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsage(error, io);
  }

  // The OpenTelemetry SDK only when OTEL_* asks for it (docs/observability.md): loaded then, not before.
  const telemetry = otelRequested(process.env) ? await (await import('./telemetry.js')).startTelemetry(process.env) : undefined;
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let host: Promise<Host> | undefined;
  const ctx: CommandContext = {
    args,
    io,
    signal: abort.signal,
    host: (extra) => (host ??= createCliHost(args, io, abort.signal, extra)),
  };
  try {
    const handler = await COMMANDS[args.command as CommandName].load();
    return await handler(ctx);
  } catch (error) {
    return await reportError(error, args, io, host);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await host?.then(
      (h) => h.close(),
      () => undefined,
    );
    await telemetry?.shutdown();
  }
}

// The host, the SDK and ssh2 load here, on first use, not when the CLI starts.
async function createCliHost(args: CliArgs, io: CliIo, signal: AbortSignal, extra: Partial<HostOptions> = {}): Promise<Host> {
  const [{ createHost }, { createCliMachine, resolveCwd }, { createElicitationForm }, { terminalApprover }] = await Promise.all([
    import('../host.js'),
    import('./machine.js'),
    import('./elicitation-form.js'),
    import('./confirm-writes.js'),
  ]);
  // A command may bring its own machine and working directory (add checks through a CandidateMachine).
  const machine = extra.machine ?? (await createCliMachine(args));
  const cwd = extra.cwd ?? (args.cwd === undefined ? (args.ssh ? undefined : io.cwd) : resolveCwd(args.cwd, io.cwd, Boolean(args.ssh)));
  const host = createHost({
    machine,
    ...(cwd === undefined ? {} : { cwd }),
    ...(args.config === undefined ? {} : { configPath: args.config }),
    ...(args.verbose ? { onLog: (event: LogEvent) => printLog(io.stderr, event) } : {}),
    onElicitation: createElicitationForm({ input: io.stdin, output: io.stderr }),
    savedCatalogs: true,
    ...storeChoice(args),
    ...(args.confirmWrites ? { approveCall: terminalApprover(io) } : {}),
    // A one-shot command runs one script at most: nothing to keep warm for a next one.
    warmIsolates: 0,
    ...extra,
  });
  // A missing default config means "no servers yet"; a missing file the person named is a mistake.
  if (args.config !== undefined) {
    const loaded = await host.readConfig(signal).catch(async (error: unknown) => {
      await host.close();
      throw error;
    });
    if (!loaded.exists) {
      await host.close();
      throw new UsageError(`--config ${args.config}: no such file (${loaded.path}), so no servers`, args.command);
    }
  }
  return host;
}

function printLog(stderr: Writable, event: LogEvent): void {
  const lines = terminalSafe(event.message).replace(/\n$/, '').split('\n');
  for (const line of lines) stderr.write(`[${event.server}] ${event.kind === 'stderr' ? '' : `${event.kind}: `}${line}\n`);
}

function reportUsage(error: UsageError, io: CliIo): number {
  const see = error.command === undefined ? 'berry-mcp help' : `berry-mcp help ${error.command}`;
  io.stderr.write(`berry-mcp: ${error.message}\nsee \`${see}\`\n`);
  return 2;
}

async function reportError(error: unknown, args: CliArgs, io: CliIo, host: Promise<Host> | undefined): Promise<number> {
  if (error instanceof UsageError) return reportUsage(error.command === undefined ? new UsageError(error.message, args.command) : error, io);
  if (!isBerryError(error)) {
    io.stderr.write(`berry-mcp: ${terminalSafe(cliWording((error as Error)?.message ?? String(error)))}\n`);
    return 1;
  }
  const message = cliWording(error.message) + (await hint(error, args, host));
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ error: { name: error.name, code: error.code, message } }, null, 2)}\n`);
  }
  io.stderr.write(`berry-mcp: ${terminalSafe(message)} [${error.code}]\n`);
  return USAGE_CODES.has(error.code) ? 2 : 1;
}

/** "Did you mean" for a server or tool name the person typed, from the config and catalog as they are now. */
async function hint(error: { code: BerryErrorCode }, args: CliArgs, host: Promise<Host> | undefined): Promise<string> {
  const [server, tool] = args.positionals;
  if (host === undefined || server === undefined || args.command === 'run') return '';
  try {
    if (error.code === 'MCP_UNKNOWN_SERVER') {
      const loaded = await (await host).readConfig();
      return serverHint(
        server,
        loaded.servers.map((s) => s.name),
      );
    }
    // The message lists what exists (closest first, never a "did you mean"); a person also gets one.
    if (error.code === 'MCP_UNKNOWN_TOOL' && tool !== undefined) {
      // The listed tools, after the entry's filter: a hint never names a filtered tool.
      const listed = (await (await host).list({ server })).servers[0];
      return serverHint(tool, listed?.status === 'connected' ? listed.tools.map((t) => t.name) : []);
    }
  } catch {
    // No hint then: the error itself still stands.
  }
  return '';
}
