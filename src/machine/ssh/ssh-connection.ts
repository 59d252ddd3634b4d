import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { BerryError } from '../../common/errors.js';
import { abortable } from '../../common/abort.js';

/** Output of a short command run to completion. */
export interface RunResult {
  readonly code: number | undefined;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** The control session: reads `SIGNAL PGID` lines and signals those process groups. */
/** Exit codes of exec'd channels, recorded as soon as the channel exists (see exec). */
const exitCodes = new WeakMap<ClientChannel, number | undefined>();
const CONTROL_COMMAND = `exec sh -c 'while read -r s p; do kill -$s -$p 2>/dev/null; done'`;
const SESSION_HINT =
  'sshd allows MaxSessions (default 10) sessions per connection; each running process, the SFTP session and the signal session hold one';
const FORWARD_HINT = 'the server may forbid forwarding (AllowTcpForwarding)';
const SFTP_ERROR_CODES: Readonly<Record<number, string>> = { 2: 'ENOENT', 3: 'EACCES', 4: 'EIO', 8: 'ENOTSUP' };
const MAX_RUN_OUTPUT = 8 * 1024 * 1024;
const SFTP_READ_CHUNK = 32 * 1024;
/** How long close() waits for the control session to deliver the signals sent before it. */
const CONTROL_DRAIN_MS = 1000;

/**
 * One authenticated SSH connection: one connection lifetime of an SshMachine. Caches what is
 * read once per lifetime (environment, SFTP session). Once closed it stays closed.
 */
export class SshConnection {
  readonly id: string;
  readonly identity: string;
  /** Settles when the connection is gone, with the error that ended it, if any. */
  readonly ended: Promise<Error | undefined>;
  readonly #client: Client;
  #open = true;
  #lastError: Error | undefined;
  #env: Promise<Record<string, string>> | undefined;
  #sftp: Promise<SFTPWrapper> | undefined;
  #control: Promise<ClientChannel | undefined> | undefined;
  #controlChannel: ClientChannel | undefined;

  constructor(client: Client, id: string, identity: string) {
    this.#client = client;
    this.id = id;
    this.identity = identity;
    this.ended = new Promise((resolve) => {
      client.on('error', (error) => {
        this.#lastError = error;
      });
      client.once('close', () => {
        this.#open = false;
        resolve(this.#lastError);
      });
    });
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Opens an exec channel (a new session on the server, so a new process group). */
  exec(command: string): Promise<ClientChannel> {
    return this.#channel(
      (callback) =>
        this.#client.exec(command, (error, channel) => {
          // A fast command's exit status can arrive in the same read as the exec reply, before the
          // caller's await resumes: record it now, or it is lost.
          if (!error) channel.once('exit', (code: number | null) => exitCodes.set(channel, code ?? undefined));
          callback(error, channel);
        }),
      `Cannot start a command on ${this.identity}`,
      SESSION_HINT,
    );
  }

  /** Opens a TCP connection from the remote machine to `host:port` (resolved remotely). */
  forward(host: string, port: number): Promise<ClientChannel> {
    return this.#channel(
      (callback) => this.#client.forwardOut('127.0.0.1', 0, host, port, callback),
      `${this.identity} could not connect to ${host}:${port} (resolved and connected on the remote side)`,
      FORWARD_HINT,
    );
  }

  /** Runs a short command and collects its output (bounded). */
  async run(command: string, signal?: AbortSignal): Promise<RunResult> {
    const channel = await this.exec(command);
    return abortable(
      new Promise<RunResult>((resolve) => {
        const out: Buffer[] = [];
        let outLength = 0;
        let err = '';
        channel.on('data', (chunk: Buffer) => {
          if (outLength < MAX_RUN_OUTPUT) out.push(chunk);
          outLength += chunk.length;
        });
        channel.stderr.on('data', (chunk: Buffer) => {
          err = (err + chunk.toString('utf8')).slice(-4096);
        });
        channel.once('close', () => resolve({ code: exitCodes.get(channel), stdout: Buffer.concat(out), stderr: err }));
      }),
      signal,
      () => channel.close(),
    );
  }

  /** The login environment, read once per lifetime. */
  env(signal?: AbortSignal): Promise<Record<string, string>> {
    this.#env ??= this.#readEnv().catch((error: unknown) => {
      this.#env = undefined;
      throw error;
    });
    return abortable(this.#env, signal);
  }

  async homeDir(signal?: AbortSignal): Promise<string> {
    const home = (await this.env(signal)).HOME;
    if (home) return home;
    // SFTP sessions start in the login directory.
    const sftp = await abortable(this.#sftpSession(), signal);
    return abortable(new Promise<string>((resolve, reject) => sftp.realpath('.', (e, p) => (e ? reject(e) : resolve(p)))), signal);
  }

  /** Reads a UTF-8 file over SFTP; undefined when it does not exist. */
  async readFile(path: string, signal?: AbortSignal): Promise<string | undefined> {
    const sftp = await abortable(this.#sftpSession(), signal);
    return abortable(this.#readWhole(sftp, path), signal);
  }

  /** The connection's SFTP session (opened once per lifetime), for file writes. */
  sftp(signal?: AbortSignal): Promise<SFTPWrapper> {
    return abortable(this.#sftpSession(), signal);
  }

  // The config is reread on every operation: open + read is two round trips, where ssh2's
  // readFile takes four (open, fstat, read, close). The close is not waited for.
  #readWhole(sftp: SFTPWrapper, path: string): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      const fail = (error: Error): void => {
        const status = (error as Error & { code?: unknown }).code;
        const code = typeof status === 'number' ? (SFTP_ERROR_CODES[status] ?? 'EIO') : String(status ?? 'EIO');
        if (code === 'ENOENT') resolve(undefined);
        else reject(Object.assign(new Error(`Cannot read ${path} on ${this.identity}: ${error.message}`), { code, path }));
      };
      sftp.open(path, 'r', (openError, handle) => {
        if (openError) return fail(openError);
        const chunks: Buffer[] = [];
        let position = 0;
        const finish = (error?: Error): void => {
          sftp.close(handle, () => {});
          if (error) fail(error);
          else resolve(Buffer.concat(chunks).toString('utf8'));
        };
        const next = (): void => {
          const buffer = Buffer.allocUnsafe(SFTP_READ_CHUNK);
          sftp.read(handle, buffer, 0, SFTP_READ_CHUNK, position, (error, bytesRead) => {
            if (error) return finish(error);
            chunks.push(buffer.subarray(0, bytesRead));
            position += bytesRead;
            // A regular file gives a short read only at its end: no round trip to read the EOF.
            if (bytesRead < SFTP_READ_CHUNK) return finish();
            next();
          });
        };
        next();
      });
    });
  }


  /**
   * Opens the control session (once) that delivers group signals. Spawns call this first, so a
   * kill never needs a new session when sshd's MaxSessions is used up by running processes.
   */
  async prepareControl(): Promise<void> {
    this.#control ??= this.exec(CONTROL_COMMAND).then(
      (channel) => {
        channel.on('error', () => {});
        channel.stderr.resume();
        channel.resume();
        channel.once('close', () => {
          this.#control = undefined;
          this.#controlChannel = undefined;
        });
        this.#controlChannel = channel;
        return channel;
      },
      () => {
        this.#control = undefined;
        return undefined;
      },
    );
    await this.#control;
  }

  /** Sends `signal` to process group `pgid` on the remote machine. Never throws. */
  signalGroup(pgid: number, signal: 'TERM' | 'KILL'): void {
    if (!this.#open || !Number.isInteger(pgid) || pgid <= 1) return;
    const control = this.#controlChannel;
    if (control && control.writable) {
      control.write(`${signal} ${pgid}\n`);
      return;
    }
    this.run(`kill -${signal} -${pgid}`).catch(() => {});
  }

  /**
   * Ends the connection. sshd drops channel data it has not yet handed to a process when the
   * client disconnects, so group signals already queued on the control session would be lost
   * (a server's escaped descendants would survive): its input is ended first, and the
   * connection ends once the control shell has read everything and exited (bounded).
   */
  close(): void {
    const control = this.#controlChannel;
    if (!this.#open || !control || control.destroyed) {
      this.#client.end();
      return;
    }
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.#client.end();
    };
    const timer = setTimeout(end, CONTROL_DRAIN_MS);
    timer.unref();
    control.once('close', end);
    control.end();
  }

  async #readEnv(): Promise<Record<string, string>> {
    const zero = await this.run('env -0');
    if (zero.code === 0) return Object.freeze(parseEnv(zero.stdout.toString('utf8'), '\0'));
    // `env -0` is GNU/BSD-newer; plain `env` loses only values that contain newlines.
    const plain = await this.run('env');
    if (plain.code === 0) return Object.freeze(parseEnv(plain.stdout.toString('utf8'), '\n'));
    throw new BerryError('MACHINE_UNAVAILABLE', `Cannot read the environment of ${this.identity}: ${plain.stderr.trim() || `env exited with ${plain.code}`}`);
  }

  #sftpSession(): Promise<SFTPWrapper> {
    this.#sftp ??= this.#channel<SFTPWrapper>((callback) => this.#client.sftp(callback), `Cannot open an SFTP session on ${this.identity}`, SESSION_HINT).then(
      (sftp) => {
        sftp.once('close', () => {
          this.#sftp = undefined;
        });
        return sftp;
      },
      (error: unknown) => {
        this.#sftp = undefined;
        throw error;
      },
    );
    return this.#sftp;
  }

  #channel<T>(open: (callback: (error: Error | undefined, channel: T) => void) => unknown, failure: string, hint: string): Promise<T> {
    if (!this.#open) {
      return Promise.reject(new BerryError('MACHINE_UNAVAILABLE', `${failure}: the SSH connection (lifetime ${this.id}) is closed`));
    }
    return new Promise<T>((resolve, reject) => {
      try {
        open((error, channel) => (error ? reject(channelError(error, failure, hint)) : resolve(channel)));
      } catch (error) {
        reject(channelError(error as Error, failure, hint));
      }
    });
  }
}

/** A refused channel: `code` follows Node's socket codes where the server's reason allows. */
function channelError(error: Error, failure: string, hint: string): Error {
  const reason = error.message.replace(/^\(SSH\) Channel open failure: /, '');
  let code = 'ERR_SSH_CHANNEL_OPEN';
  if (/refused/i.test(reason)) code = 'ECONNREFUSED';
  else if (/name resolution|not known|nodename|no address/i.test(reason)) code = 'ENOTFOUND';
  else if (/no route|unreachable/i.test(reason)) code = 'EHOSTUNREACH';
  // OpenSSH says only "open failed" when it refuses a session or a forwarding.
  const explained = /open failed|prohibited/i.test(reason) ? `${reason} (${hint})` : reason;
  return Object.assign(new Error(`${failure}: ${explained}`, { cause: error }), { code });
}

/** Parses `NAME=value` records; a record without `=` continues the previous value (plain `env`). */
export function parseEnv(text: string, separator: '\0' | '\n'): Record<string, string> {
  const env: Record<string, string> = Object.create(null);
  let last: string | undefined;
  for (const record of text.split(separator)) {
    const eq = record.indexOf('=');
    if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(record.slice(0, eq))) {
      last = record.slice(0, eq);
      env[last] = record.slice(eq + 1);
    } else if (separator === '\n' && last !== undefined && record !== '') {
      env[last] += `\n${record}`;
    }
  }
  return env;
}
