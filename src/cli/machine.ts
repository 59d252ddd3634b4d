import { resolve } from 'node:path';
import type { Machine } from '../remote/machine/index.js';
// Not the remote face: it loads the MCP transports and ssh2, which a local run does not need.
import { LocalMachine } from '../remote/machine/local-machine.js';
import type { CliArgs } from './usage.js';
import { UsageError } from './usage.js';

export interface SshTarget {
  readonly username: string | undefined;
  readonly host: string;
  readonly port: number | undefined;
}

/** Parses `[USER@]HOST[:PORT]`, with `[v6addr]:PORT` for IPv6 literals. */
export function parseSshTarget(text: string): SshTarget {
  const at = text.lastIndexOf('@');
  const username = at === -1 ? undefined : text.slice(0, at);
  const rest = at === -1 ? text : text.slice(at + 1);
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest) ?? /^([^:]+)(?::(\d+))?$/.exec(rest);
  const host = match?.[1];
  if (username === '' || host === undefined || host === '') {
    throw new UsageError(`--ssh expects [USER@]HOST[:PORT], got "${text}"`);
  }
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65535)) throw new UsageError(`--ssh port must be 1-65535, got ${port}`);
  return { username, host, port };
}

/** The machine the command targets: local, or a remote one with --ssh. */
export async function createCliMachine(args: Pick<CliArgs, 'ssh' | 'identity' | 'acceptHostKey'>): Promise<Machine> {
  if (args.ssh === undefined) {
    if (args.identity !== undefined) throw new UsageError('--identity needs --ssh');
    if (args.acceptHostKey) throw new UsageError('--accept-host-key needs --ssh');
    return new LocalMachine();
  }
  const target = parseSshTarget(args.ssh);
  const { SshMachine } = await import('../remote/machine/ssh/ssh-machine.js');
  return new SshMachine({
    host: target.host,
    ...(target.port === undefined ? {} : { port: target.port }),
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(args.identity === undefined ? {} : { identityFile: args.identity }),
    acceptUnknownHostKey: args.acceptHostKey,
  });
}

/** `--cwd DIR` as a path on the target machine: absolute over SSH, else resolved against `base`. */
export function resolveCwd(cwd: string, base: string, remote: boolean): string {
  if (remote) {
    if (!cwd.startsWith('/')) throw new UsageError('--cwd must be an absolute path on the remote machine');
    return cwd;
  }
  return resolve(base, cwd);
}
