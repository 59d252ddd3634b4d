import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { BerryError } from '../../../common/errors.js';
import { abortable } from '../../../common/abort.js';
import { channelError, FORWARD_HINT, SESSION_HINT } from './ssh-channel-error.js';
import { readLoginEnv, type RunResult } from './ssh-env.js';
import { sftpReadWhole } from './sftp-read.js';

export type { RunResult };

/** Exit codes of exec'd channels, recorded as soon as the channel exists (see exec). */
const exitCodes = new WeakMap<ClientChannel, number | undefined>();
/** The control session: reads `SIGNAL PGID` lines and signals those process groups. */
const CONTROL_COMMAND = `exec sh -c 'while read -r s p; do kill -$s -$p 2>/dev/null; done'`;
const MAX_RUN_OUTPUT = 8 * 1024 * 1024;
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
    this.#env ??= readLoginEnv((command) => this.run(command), this.identity).catch((error: unknown) => {
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
    return abortable(sftpReadWhole(sftp, this.identity, path), signal);
  }

  /** The connection's SFTP session (opened once per lifetime), for file writes. */
  sftp(signal?: AbortSignal): Promise<SFTPWrapper> {
    return abortable(this.#sftpSession(), signal);
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
    if (control?.writable) {
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
