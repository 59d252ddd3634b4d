/**
 * The "remote-only" HTTP(S) server of the SSH harness, run as its own process (inside the
 * harness's network namespace when there is one). Usage: node remote-http-server.js [CERT KEY].
 * Prints `{"httpPort":…,"httpsPort":…}` once listening; answers every request with JSON that
 * describes the request and the peer it came from.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

function answer(request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify({
    method: request.method,
    url: request.url,
    host: request.headers.host,
    peerAddress: request.socket.remoteAddress,
    peerPort: request.socket.remotePort,
    pid: process.pid,
  });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

const [certFile, keyFile] = process.argv.slice(2);
const http = createServer(answer).listen(0, '127.0.0.1');
await new Promise((resolve) => http.once('listening', resolve));
let httpsPort: number | undefined;
if (certFile && keyFile) {
  const https = createTlsServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, answer).listen(0, '127.0.0.1');
  await new Promise((resolve) => https.once('listening', resolve));
  httpsPort = (https.address() as AddressInfo).port;
}
process.stdout.write(`${JSON.stringify({ httpPort: (http.address() as AddressInfo).port, httpsPort })}\n`);
// Exit with the harness: it closes our stdin.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
