import { existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';

/** How to reach and trust a machine over SSH. */
export interface SshMachineOptions {
  /** Host name or IP address of the SSH server (resolved by the local machine). */
  readonly host: string;
  /** @default 22 */
  readonly port?: number;
  /** @default the current local user */
  readonly username?: string;
  /**
   * Private key file used first. Without it (and besides the agent) the user's default keys are
   * tried: `~/.ssh/id_ed25519`, `~/.ssh/id_ecdsa`, `~/.ssh/id_rsa`, those that exist.
   */
  readonly identityFile?: string;
  /** Passphrase for an encrypted `identityFile`. Never printed. */
  readonly passphrase?: string;
  /**
   * ssh-agent socket path; `false` disables the agent.
   * @default process.env.SSH_AUTH_SOCK
   */
  readonly agent?: string | false;
  /** @default ~/.ssh/known_hosts */
  readonly knownHostsFile?: string;
  /**
   * Accept a host that has no entry in `knownHostsFile`. The key seen first is then pinned for
   * this machine object (not written to disk). A host whose key CHANGED is always refused.
   * @default false
   */
  readonly acceptUnknownHostKey?: boolean;
  /** SSH keepalive interval; three unanswered keepalives end the connection. @default 15000 */
  readonly keepaliveIntervalMs?: number;
  /** Bound on TCP connect + handshake + authentication. @default 15000 */
  readonly connectTimeoutMs?: number;
  /** Extra TLS options for https requests made through the tunnel (for example `ca`). */
  readonly tls?: Readonly<ConnectionOptions>;
}

/** Options with every default filled in. */
export interface NormalizedSshOptions {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly identityFile: string | undefined;
  readonly passphrase: string | undefined;
  readonly agent: string | undefined;
  /** Used only when no identityFile is given. */
  readonly defaultIdentityFiles: readonly string[];
  readonly knownHostsFile: string;
  readonly acceptUnknownHostKey: boolean;
  readonly keepaliveIntervalMs: number;
  readonly connectTimeoutMs: number;
  readonly tls: Readonly<ConnectionOptions>;
  /** `ssh:USER@HOST:PORT` */
  readonly identity: string;
}

const DEFAULT_KEY_NAMES = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

/** Fills defaults and validates a copy of the options; throws a TypeError naming the bad field. */
export function normalizeSshMachineOptions(options: SshMachineOptions): NormalizedSshOptions {
  const o: Partial<SshMachineOptions> = Object.assign(Object.create(null), options);
  const fail = (field: string, want: string): never => {
    throw new TypeError(`Invalid SSH option "${field}": expected ${want}`);
  };
  if (typeof o.host !== 'string' || o.host.trim() === '' || /[\s@]/.test(o.host)) {
    fail('host', 'a host name or IP address without spaces or "@"');
  }
  const host = o.host!.replace(/^\[(.*)\]$/, '$1');
  const port = o.port ?? 22;
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail('port', 'an integer from 1 to 65535');
  const username = o.username ?? currentUser();
  if (typeof username !== 'string' || username === '' || /[\s@:]/.test(username)) {
    fail('username', 'a user name without spaces, "@" or ":"');
  }
  const home = homedir();
  const path = (field: string, value: unknown): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') return fail(field, 'a non-empty path');
    return expandHome(value as string, home);
  };
  const agentOption = o.agent === undefined ? process.env.SSH_AUTH_SOCK || undefined : o.agent;
  if (agentOption !== undefined && agentOption !== false && (typeof agentOption !== 'string' || agentOption === '')) {
    fail('agent', 'a socket path or false');
  }
  const ms = (field: string, value: unknown, fallback: number): number => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return fail(field, 'a number of milliseconds ≥ 0');
    return v as number;
  };
  if (o.passphrase !== undefined && typeof o.passphrase !== 'string') fail('passphrase', 'a string');
  if (o.acceptUnknownHostKey !== undefined && typeof o.acceptUnknownHostKey !== 'boolean') {
    fail('acceptUnknownHostKey', 'a boolean');
  }
  const identityFile = path('identityFile', o.identityFile);
  return {
    host,
    port,
    username,
    identityFile,
    passphrase: o.passphrase,
    agent: agentOption === false ? undefined : agentOption,
    defaultIdentityFiles: identityFile ? [] : DEFAULT_KEY_NAMES.map((name) => join(home, '.ssh', name)).filter((file) => existsSync(file)),
    knownHostsFile: path('knownHostsFile', o.knownHostsFile) ?? join(home, '.ssh', 'known_hosts'),
    acceptUnknownHostKey: o.acceptUnknownHostKey ?? false,
    keepaliveIntervalMs: ms('keepaliveIntervalMs', o.keepaliveIntervalMs, 15_000),
    connectTimeoutMs: ms('connectTimeoutMs', o.connectTimeoutMs, 15_000),
    tls: { ...(o.tls ?? {}) },
    identity: `ssh:${username}@${host.includes(':') ? `[${host}]` : host}:${port}`,
  };
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.LOGNAME ?? '';
  }
}

function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(path);
}
