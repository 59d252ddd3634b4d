/**
 * The loopback listener on the LOCAL machine that receives the authorization server's redirect
 * (`http://127.0.0.1:PORT/callback?code=…&state=…`). Only a redirect carrying the expected
 * `state` ends the wait; anything else is answered and ignored.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onAbort } from '../common/abort.js';
import { BerryError } from '../common/errors.js';

export const CALLBACK_PATH = '/callback';

export interface RedirectListener {
  readonly port: number;
  readonly redirectUrl: string;
  /**
   * Resolves with the code of the first redirect whose `state` matches; rejects on an error
   * redirect, or when `checkIssuer` throws for its `iss` parameter (null when absent).
   */
  waitForCode(state: string, timeoutMs: number, signal?: AbortSignal, checkIssuer?: (iss: string | null) => void): Promise<string>;
  /**
   * Keeps the process alive while someone waits for the redirect. The listener does not by
   * itself: a sign-in nobody waits for any more must not keep a finished program running.
   */
  hold(): () => void;
  close(): Promise<void>;
}

interface Waiter {
  readonly state: string;
  readonly checkIssuer: ((iss: string | null) => void) | undefined;
  resolve(code: string): void;
  reject(error: Error): void;
}

/** Listens on 127.0.0.1:`port` (0: ephemeral). Rejects with the socket error (EADDRINUSE) if it cannot. */
export async function startRedirectListener(port = 0): Promise<RedirectListener> {
  let waiter: Waiter | undefined;
  const settle = (url: URL): { status: number; text: string } => {
    if (url.pathname !== CALLBACK_PATH) return { status: 404, text: 'Not found.' };
    const state = url.searchParams.get('state');
    if (!waiter || state !== waiter.state) {
      return { status: 400, text: 'This sign-in link is not the one berry-mcp is waiting for (state mismatch). Start the sign-in again.' };
    }
    const current = waiter;
    waiter = undefined;
    try {
      current.checkIssuer?.(url.searchParams.get('iss'));
    } catch (refusal) {
      current.reject(refusal as Error);
      return { status: 400, text: 'Sign-in refused: the redirect does not come from the expected authorization server; see berry-mcp for details.' };
    }
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error !== null || code === null) {
      const description = url.searchParams.get('error_description');
      current.reject(
        new BerryError(
          'MCP_AUTH_REQUIRED',
          `The authorization server refused the sign-in: ${error ?? 'no code in the redirect'}${description ? ` (${description.slice(0, 200)})` : ''}.`,
        ),
      );
      return { status: 400, text: 'Sign-in failed; see berry-mcp for details.' };
    }
    current.resolve(code);
    return { status: 200, text: 'Signed in to berry-mcp. You can close this window.' };
  };

  const server: Server = createServer((req, res) => {
    let result: { status: number; text: string };
    try {
      result = req.method === 'GET' ? settle(new URL(req.url ?? '/', 'http://127.0.0.1')) : { status: 405, text: 'Method not allowed.' };
    } catch {
      result = { status: 400, text: 'Bad request.' };
    }
    res.writeHead(result.status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(`${result.text}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', () => {});
  server.unref();
  let holders = 0;
  const actualPort = (server.address() as AddressInfo).port;

  return {
    port: actualPort,
    redirectUrl: `http://127.0.0.1:${actualPort}${CALLBACK_PATH}`,
    waitForCode(state, timeoutMs, signal, checkIssuer) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            done(
              undefined,
              new BerryError('MCP_AUTH_REQUIRED', `No sign-in redirect arrived within ${Math.round(timeoutMs / 1000)} s; run the sign-in again.`),
            ),
          timeoutMs,
        );
        timer.unref();
        const cancel = (): void => done(undefined, new BerryError('MCP_CANCELLED', 'The sign-in was cancelled.'));
        const forget = signal ? onAbort(signal, cancel) : undefined;
        const done = (code: string | undefined, error?: Error): void => {
          clearTimeout(timer);
          forget?.();
          if (waiter?.state === state) waiter = undefined;
          if (code !== undefined) resolve(code);
          else reject(error);
        };
        waiter = { state, checkIssuer, resolve: (code) => done(code), reject: (error) => done(undefined, error) };
        if (signal?.aborted) cancel();
      });
    },
    hold() {
      if (holders++ === 0) server.ref();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holders === 0) server.unref();
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        waiter?.reject(new BerryError('MCP_CANCELLED', 'The sign-in was cancelled.'));
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
