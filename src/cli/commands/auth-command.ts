/**
 * `berry-mcp auth SERVER`: signs in to an HTTP server (opens the browser or prints the URL, waits
 * for the redirect on a loopback port of this machine), or signs out with --logout. With --ssh the
 * browser and the redirect listener stay here; requests and token files are the remote machine's.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { isBerryError } from '../../common/errors.js';
import { childEnv } from '../../remote/machine/child-env.js';
import { createHost, type Host } from '../../host.js';
import type { LogEvent } from '../../bindings/index.js';
import type { CliIo, CommandHandler } from '../context.js';
import { createCliMachine } from '../machine.js';
import { storeChoice } from '../args/store-choice.js';

/** Runs `berry-mcp auth SERVER …`; resolves to the exit status. */
export const authCommand: CommandHandler = async ({ args, io, signal }) => {
  const server = args.positionals[0]!;
  const timeoutSeconds = args.timeoutSeconds ?? 300;
  const noBrowser = args.values['no-browser'] === true;
  let host: Host | undefined;
  const paste = noBrowser ? pasteReader(io, signal) : undefined;
  try {
    const machine = await createCliMachine(args);
    const cwd = args.cwd === undefined ? (args.ssh ? undefined : io.cwd) : args.ssh ? args.cwd : resolve(io.cwd, args.cwd);
    host = createHost({
      machine,
      ...(cwd === undefined ? {} : { cwd }),
      ...(args.config === undefined ? {} : { configPath: args.config }),
      ...(args.verbose ? { onLog: (event: LogEvent) => io.stderr.write(`[${event.server}] ${event.kind}: ${event.message}\n`) } : {}),
      signInTimeoutMs: timeoutSeconds * 1000,
      ...storeChoice(args),
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
    if (args.values.logout === true) {
      const removed = await host.logout(server, { signal });
      const text = removed ? `Signed out of "${server}": its tokens were removed.` : `No stored sign-in for "${server}".`;
      io.stdout.write(args.json ? `${JSON.stringify({ server, removed })}\n` : `${text}\n`);
      return 0;
    }
    const result = await host.authorize(server, { signal });
    if (args.json) {
      io.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      const who = result.subject ? ` as ${result.subject}` : '';
      const scopes = result.scopes.length > 0 ? result.scopes.join(' ') : '(none stated)';
      const expires =
        result.expiresAt === undefined ? '' : `\nThe access token expires at ${new Date(result.expiresAt).toISOString()}; it is refreshed automatically.`;
      io.stdout.write(`Signed in to "${server}"${who}. Scopes: ${scopes}.${expires}\n`);
    }
    return 0;
  } catch (error) {
    // Not main's report: auth keeps its own statuses (2 for a name or entry it cannot sign in to, 1 for a failed sign-in).
    if (isBerryError(error)) {
      io.stderr.write(`berry-mcp: ${error.message} [${error.code}]\n`);
      return error.code === 'MCP_UNKNOWN_SERVER' || error.code === 'MCP_INVALID_ARGUMENT' || error.code === 'MCP_CONFIG_INVALID' ? 2 : 1;
    }
    io.stderr.write(`berry-mcp: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  } finally {
    paste?.stop();
    await host?.close();
  }
};

/**
 * Reads pasted redirect addresses from stdin and delivers each to the loopback listener of this
 * machine by requesting it, as the browser would have. Only 127.0.0.1/localhost URLs are requested.
 */
function pasteReader(io: CliIo, signal: AbortSignal): { start(): void; stop(): void } {
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
