import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { Agent, buildConnector } from 'undici';
import { loadUndici } from '../lazy-modules.js';

export interface SshDispatcherOptions {
  /** Opens a TCP connection from the remote machine (its DNS, its localhost). */
  readonly forward: (host: string, port: number) => Promise<Duplex>;
  /** Bound on opening the tunnel channel plus the TLS handshake. */
  readonly connectTimeoutMs: number;
  readonly tls: Readonly<ConnectionOptions>;
}

/**
 * An undici Agent whose connections are SSH `direct-tcpip` channels, wrapped in TLS for https.
 * Everything above the socket (pooling, HTTP/1.1, redirects left to the caller) is undici's.
 */
export function createSshDispatcher(options: SshDispatcherOptions): Agent {
  const connect: buildConnector.connector = (target, callback) => {
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const https = target.protocol === 'https:';
    const port = Number(target.port) || (https ? 443 : 80);
    let done = false;
    const finish = (error: Error | null, socket?: Duplex): void => {
      if (done) {
        socket?.destroy();
        return;
      }
      done = true;
      clearTimeout(timer);
      if (error) callback(error, null);
      else callback(null, socket as Socket);
    };
    const timer = setTimeout(() => {
      finish(
        Object.assign(new Error(`Connecting to ${host}:${port} through SSH timed out after ${options.connectTimeoutMs} ms`), {
          code: 'UND_ERR_CONNECT_TIMEOUT',
        }),
      );
    }, options.connectTimeoutMs);
    options.forward(host, port).then(
      (channel) => {
        if (!https) return finish(null, channel);
        const servername = target.servername || (isIP(host) ? undefined : host);
        const socket = tlsConnect({
          ...options.tls,
          socket: channel as Socket,
          ALPNProtocols: ['http/1.1'],
          ...(servername ? { servername } : {}),
        });
        socket.once('secureConnect', () => finish(null, socket));
        socket.once('error', (error) => {
          finish(error);
          channel.destroy();
        });
      },
      (error: Error) => finish(error),
    );
  };
  return new (loadUndici().Agent)({ connect });
}
