import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import type { AnyAuthMethod, AuthenticationType, Client as SshClient, NextAuthHandler, ParsedKey } from 'ssh2';
import { onAbort } from '../../../common/abort.js';
import { BerryError } from '../../../common/errors.js';
import { checkHostKey, fingerprintOf, hostKeyAlgorithms, keyTypeOf, knownHostsName, parseKnownHosts, type KnownHostEntry } from './ssh-known-hosts.js';
import { loadSsh2 } from '../lazy-modules.js';
import type { NormalizedSshOptions } from './ssh-options.js';

/** Host key accepted under `acceptUnknownHostKey`, pinned for the rest of the machine's life. */
export interface HostKeyPin {
  key: Buffer | undefined;
}

interface Credentials {
  readonly methods: AnyAuthMethod[];
  /** What was tried, for messages: `identity file ~/.ssh/id_ed25519`, `ssh-agent`. */
  readonly described: string[];
}

/**
 * Opens and authenticates an SSH connection, verifying the host key against known_hosts.
 * Every failure is a BerryError `MACHINE_UNAVAILABLE` naming `user@host:port` and the cause.
 */
export async function connectSsh(o: NormalizedSshOptions, pin: HostKeyPin, signal?: AbortSignal): Promise<SshClient> {
  const unavailable = (cause: string, error?: unknown): BerryError =>
    new BerryError('MACHINE_UNAVAILABLE', `Cannot connect to ${o.identity}: ${cause}`, { cause: error });
  signal?.throwIfAborted();
  const entries = await readKnownHosts(o.knownHostsFile).catch((error: NodeJS.ErrnoException) => {
    throw unavailable(`cannot read known_hosts file ${o.knownHostsFile} (${error.code ?? error.message})`, error);
  });
  const credentials = await loadCredentials(o).catch((error: Error) => {
    throw unavailable(error.message, error);
  });
  if (credentials.methods.length === 0) {
    throw unavailable('no credentials to offer: pass identityFile, start ssh-agent (SSH_AUTH_SOCK), or create ~/.ssh/id_ed25519');
  }

  return new Promise<SshClient>((resolve, reject) => {
    const client = new (loadSsh2().Client)();
    let hostKeyProblem: string | undefined;
    let settled = false;
    let forget: (() => void) | undefined;
    const finish = (error?: BerryError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      forget?.();
      if (error === undefined) return resolve(client);
      client.end();
      sock.destroy();
      reject(error);
    };
    const timer = setTimeout(() => finish(unavailable(`no answer within ${o.connectTimeoutMs} ms (connectTimeoutMs)`)), o.connectTimeoutMs);
    if (signal) forget = onAbort(signal, () => finish(unavailable('the connection attempt was aborted', signal.reason)));

    const sock = netConnect({ host: o.host, port: o.port });
    // Without it every request/response exchange stalls ~40 ms (Nagle + delayed ACK).
    sock.setNoDelay(true);
    client.on('error', (error: Error & { level?: string; code?: string }) => {
      finish(unavailable(hostKeyProblem ?? describeConnectError(error, o, credentials), error));
    });
    client.once('close', () => finish(unavailable(hostKeyProblem ?? 'the server closed the connection during the handshake')));
    let ready = false;
    let nudging = false;
    // sshd answers non-PTY sessions without TCP_NODELAY and follows authentication with DEBUG
    // messages; while we stay silent its next packet waits for our delayed ACK (~40 ms). A
    // no-reply, no-op global request carries that ACK at once.
    const onDebug = (message: string): void => {
      if (!ready || nudging || message !== 'Inbound: Received DEBUG') return;
      nudging = true;
      setImmediate(() => {
        nudging = false;
        try {
          client.unforwardIn('127.0.0.1', 0);
        } catch {
          // Not connected any more: nothing to acknowledge.
        }
      });
    };
    client.once('ready', () => {
      ready = true;
      finish();
    });
    client.connect({
      debug: onDebug,
      sock,
      username: o.username,
      keepaliveInterval: o.keepaliveIntervalMs,
      keepaliveCountMax: 3,
      readyTimeout: 0,
      algorithms: { serverHostKey: hostKeyAlgorithms(entries, o.host, o.port) as never },
      hostVerifier: (key: Buffer, verify: (valid: boolean) => void) => {
        hostKeyProblem = verifyHostKey(o, entries, pin, key);
        verify(hostKeyProblem === undefined);
      },
      authHandler: authSequence(credentials.methods),
    });
  });
}

async function readKnownHosts(file: string): Promise<KnownHostEntry[]> {
  try {
    return parseKnownHosts(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Returns undefined when the key is trusted, else the refusal message. */
function verifyHostKey(o: NormalizedSshOptions, entries: readonly KnownHostEntry[], pin: HostKeyPin, key: Buffer): string | undefined {
  const type = keyTypeOf(key);
  const offered = `${type} key ${fingerprintOf(key)}`;
  const name = knownHostsName(o.host, o.port);
  const file = o.knownHostsFile;
  const verdict = checkHostKey(entries, o.host, o.port, key);
  const changed = (was: string): string =>
    `WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! ${was}, but the server now offers ${offered}. ` +
    'Someone may be intercepting the connection (man-in-the-middle), or the host key was replaced. ' +
    'Refusing to connect; acceptUnknownHostKey does not override this. If the change is expected, ' +
    `remove the old entry with \`ssh-keygen -R '${name}' -f ${file}\` and add the new key.`;
  switch (verdict.status) {
    case 'known':
      return undefined;
    case 'revoked':
      return `the server's ${offered} is marked @revoked in ${file}:${verdict.entry.line}. Refusing to connect.`;
    case 'changed':
      return changed(`${file}:${verdict.expected.line} has ${type} key ${fingerprintOf(verdict.expected.key)}`);
    case 'unknown':
      if (verdict.otherTypes.length > 0) {
        return changed(`${file} knows ${name} only by ${verdict.otherTypes.join(', ')} key(s)`);
      }
      if (pin.key !== undefined) {
        return pin.key.equals(key) ? undefined : changed(`this machine accepted ${keyTypeOf(pin.key)} key ${fingerprintOf(pin.key)} earlier`);
      }
      if (o.acceptUnknownHostKey) {
        pin.key = key;
        return undefined;
      }
      return (
        `host key verification failed: ${name} is not in ${file}; the server offered ${offered}. ` +
        `If that fingerprint is the host's, add it with \`ssh-keyscan -p ${o.port} -t ${type} ${o.host} >> ${file}\` ` +
        '(compare with `ssh-keygen -lf` on the host), or set acceptUnknownHostKey: true to trust it on first use.'
      );
  }
}

async function loadCredentials(o: NormalizedSshOptions): Promise<Credentials> {
  const methods: AnyAuthMethod[] = [];
  const described: string[] = [];
  const username = o.username;
  if (o.identityFile !== undefined) {
    const key = await parsePrivateKey(o.identityFile, o.passphrase);
    if (key instanceof Error) throw new Error(`cannot use identity file ${o.identityFile}: ${key.message}`);
    methods.push({ type: 'publickey', username, key });
    described.push(`identity file ${o.identityFile}`);
  }
  if (o.agent !== undefined && existsSync(o.agent)) {
    methods.push({ type: 'agent', username, agent: o.agent });
    described.push(`ssh-agent at ${o.agent}`);
  }
  for (const file of o.defaultIdentityFiles) {
    const key = await parsePrivateKey(file, undefined);
    // Encrypted or unreadable default keys are skipped: the agent is the way to use those.
    if (key instanceof Error) continue;
    methods.push({ type: 'publickey', username, key });
    described.push(`identity file ${file}`);
  }
  return { methods, described };
}

async function parsePrivateKey(file: string, passphrase: string | undefined): Promise<ParsedKey | Error> {
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (error) {
    return new Error(`cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const parsed = loadSsh2().utils.parseKey(data, passphrase) as ParsedKey | ParsedKey[] | Error;
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key === undefined) return new Error('no key found in the file');
  if (key instanceof Error) {
    return new Error(/passphrase/i.test(key.message) ? 'the key is encrypted: pass its passphrase or load it into ssh-agent' : key.message);
  }
  if (!key.isPrivateKey()) return new Error('it holds a public key, not a private key');
  return key;
}

/** Offers the methods one after the other, skipping those the server no longer accepts. */
function authSequence(methods: readonly AnyAuthMethod[]) {
  let next = 0;
  return (methodsLeft: AuthenticationType[] | null, _partial: boolean | null, callback: NextAuthHandler): void => {
    while (next < methods.length) {
      const method = methods[next++]!;
      const wire: AuthenticationType = method.type === 'agent' ? 'publickey' : method.type;
      if (methodsLeft === null || methodsLeft.includes(wire)) return callback(method);
    }
    (callback as unknown as (value: false) => void)(false);
  };
}

function describeConnectError(error: Error & { level?: string; code?: string }, o: NormalizedSshOptions, credentials: Credentials): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `connection refused (is sshd listening on port ${o.port}?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host name ${o.host} not found (${error.code})`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET':
      return `network error ${error.code}`;
  }
  if (error.level === 'client-authentication') {
    return `authentication failed for user ${o.username} (tried: ${credentials.described.join(', ')})`;
  }
  return error.message;
}
