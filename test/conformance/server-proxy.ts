// A loopback proxy for the conformance suite's server role: the suite cannot send headers, so the
// proxy adds serve's bearer token to every request and passes everything else through unchanged
// (Origin included, so serve's own DNS-rebinding check is what the suite tests), streaming both ways.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenProxy {
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (port 0) and forwards to `target` (an http://127.0.0.1:PORT/mcp URL) with `Authorization: Bearer <token>`. */
export async function startTokenProxy(target: string, token: string): Promise<TokenProxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    delete headers.host;
    const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // A client that goes closes its stream upstream too (that is a 2026 request's cancellation).
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
