/**
 * `berry-mcp auth SERVER`: signs in to an HTTP server (opens the browser or prints the URL, waits
 * for the redirect on a loopback port of this machine), or signs out with --logout. With --ssh the
 * browser and the redirect listener stay here; requests and token files are the remote machine's.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Readable, Writable } from 'node:stream';
import { isBerryError } from '../common/errors.js';
import { childEnv } from '../machine/child-env.js';
import { createHost, type Host } from '../host.js';
import type { LogEvent } from '../mcp/index.js';
import { createCliMachine } from './machine.js';

export const AUTH_USAGE = `Usage: berry-mcp auth SERVER [--no-browser] [--timeout SECONDS]   sign in to an HTTP server
       berry-mcp auth SERVER --logout                           remove its stored tokens

Options: --config PATH, --cwd DIR, --ssh [USER@]HOST[:PORT], --identity FILE, --accept-host-key,
--json, --verbose (as for the other commands).
  --no-browser   print the sign-in URL and read the address the browser was sent to afterwards
                 (http://127.0.0.1:PORT/callback?...) from stdin, for a machine without a browser
  --timeout S    how long to wait for the sign-in (default 300)`;

export interface AuthIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly cwd: string;
}

interface AuthArgs {
  readonly server: string;
  readonly logout: boolean;
  readonly noBrowser: boolean;
  readonly json: boolean;
  readonly verbose: boolean;
  readonly timeoutMs: number;
  readonly config: string | undefined;
  readonly cwd: string | undefined;
  readonly ssh: string | undefined;
  readonly identity: string | undefined;
  readonly acceptHostKey: boolean;
}

class AuthUsageError extends Error {}

function parseAuthArgs(argv: readonly string[]): AuthArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        logout: { type: 'boolean', default: false },
        'no-browser': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        verbose: { type: 'boolean', short: 'v', default: false },
        timeout: { type: 'string' },
        config: { type: 'string' },
        cwd: { type: 'string' },
        ssh: { type: 'string' },
        identity: { type: 'string' },
        'accept-host-key': { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new AuthUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new AuthUsageError(`"auth" takes 1 argument (the server name), got ${positionals.length}`);
  const timeoutS = values.timeout === undefined ? 300 : Number(values.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new AuthUsageError(`--timeout needs a positive number, got "${values.timeout}"`);
  return {
    server: positionals[0]!,
    logout: values.logout ?? false,
    noBrowser: values['no-browser'] ?? false,
    json: values.json ?? false,
    verbose: values.verbose ?? false,
    timeoutMs: timeoutS * 1000,
    config: values.config,
    cwd: values.cwd,
    ssh: values.ssh,
    identity: values.identity,
    acceptHostKey: values['accept-host-key'] ?? false,
  };
}

/** Runs `berry-mcp auth …` (argv after "auth"); resolves to the exit status. */
export async function authCommand(argv: readonly string[], io: AuthIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(`${AUTH_USAGE}\n`);
    return 0;
  }
  let args: AuthArgs;
  try {
    args = parseAuthArgs(argv);
  } catch (error) {
    io.stderr.write(`berry-mcp: ${(error as Error).message}\n\n${AUTH_USAGE}\n`);
    return 2;
  }
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  let host: Host | undefined;
  const paste = args.noBrowser ? pasteReader(io, abort.signal) : undefined;
  try {
    const machine = await createCliMachine({ ssh: args.ssh, identity: args.identity, acceptHostKey: args.acceptHostKey });
    const cwd = args.cwd === undefined ? (args.ssh ? undefined : io.cwd) : args.ssh ? args.cwd : resolve(io.cwd, args.cwd);
    host = createHost({
      machine,
      ...(cwd === undefined ? {} : { cwd }),
      ...(args.config === undefined ? {} : { configPath: args.config }),
      ...(args.verbose ? { onLog: (event: LogEvent) => io.stderr.write(`[${event.server}] ${event.kind}: ${event.message}\n`) } : {}),
      signInTimeoutMs: args.timeoutMs,
      onAuthorizationUrl: (url) => {
        if (paste) {
          io.stderr.write(
            `Open this URL in a browser and sign in:\n\n  ${url}\n\nThe browser then goes to an address starting with http://127.0.0.1: (it may show an error page).\nPaste that whole address here and press Enter:\n`,
          );
          paste.start();
        } else {
          io.stderr.write(`Opening the browser to sign in. If it does not open, visit:\n\n  ${url}\n\nWaiting for the sign-in…\n`);
          openBrowser(url);
        }
      },
    });
    if (args.logout) {
      const removed = await host.logout(args.server, { signal: abort.signal });
      const text = removed ? `Signed out of "${args.server}": its tokens were removed.` : `No stored sign-in for "${args.server}".`;
      io.stdout.write(args.json ? `${JSON.stringify({ server: args.server, removed })}\n` : `${text}\n`);
      return 0;
    }
    const result = await host.authorize(args.server, { signal: abort.signal });
    if (args.json) {
      io.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      const who = result.subject ? ` as ${result.subject}` : '';
      const scopes = result.scopes.length > 0 ? result.scopes.join(' ') : '(none stated)';
      const expires = result.expiresAt === undefined ? '' : `\nThe access token expires at ${new Date(result.expiresAt).toISOString()}; it is refreshed automatically.`;
      io.stdout.write(`Signed in to "${args.server}"${who}. Scopes: ${scopes}.${expires}\n`);
    }
    return 0;
  } catch (error) {
    if (isBerryError(error)) {
      io.stderr.write(`berry-mcp: ${error.message} [${error.code}]\n`);
      return error.code === 'MCP_UNKNOWN_SERVER' || error.code === 'MCP_INVALID_ARGUMENT' || error.code === 'MCP_CONFIG_INVALID' ? 2 : 1;
    }
    io.stderr.write(`berry-mcp: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    paste?.stop();
    await host?.close();
  }
}

/**
 * Reads pasted redirect addresses from stdin and delivers each to the loopback listener of this
 * machine by requesting it, as the browser would have. Only 127.0.0.1/localhost URLs are requested.
 */
function pasteReader(io: AuthIo, signal: AbortSignal): { start(): void; stop(): void } {
  let lines: ReturnType<typeof createInterface> | undefined;
  return {
    start() {
      lines ??= createInterface({ input: io.stdin });
      lines.on('line', (line) => {
        const text = line.trim();
        if (text === '') return;
        let url: URL;
        try {
          url = new URL(text);
        } catch {
          io.stderr.write('That is not a URL. Paste the whole address from the browser (http://127.0.0.1:…/callback?…):\n');
          return;
        }
        if (url.protocol !== 'http:' || (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost')) {
          io.stderr.write('That address is not the http://127.0.0.1:… redirect. Paste the address the browser went to after signing in:\n');
          return;
        }
        url.hostname = '127.0.0.1';
        fetch(url, { signal })
          .then(async (response) => {
            const body = await response.text();
            if (!response.ok) io.stderr.write(`${body.trim()}\n`);
          })
          .catch(() => io.stderr.write('Nothing is waiting at that address (wrong port, or the sign-in already ended).\n'));
      });
    },
    stop() {
      lines?.close();
    },
  };
}

function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true, env: childEnv({}) });
    child.on('error', () => {});
    child.unref();
  } catch {
    // The URL is printed anyway.
  }
}
