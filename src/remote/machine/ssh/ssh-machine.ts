import { nodeCrypto } from '../../../common/lazy-node.js';
import type { Agent, Dispatcher } from 'undici';
import { BerryError } from '../../../common/errors.js';
import type { FileInfo, FileInfoOptions, Machine, MachineProcess, SpawnSpec, WriteFileOptions } from '../machine.js';
import { remoteUserId, sftpChmod, sftpFileInfo, sftpMkdir, sftpReadLink, sftpRealPath, sftpRename, sftpUnlink, sftpWriteFile } from './ssh-files.js';
import { connectSsh, type HostKeyPin } from './ssh-connect.js';
import { SshConnection } from './ssh-connection.js';
import { createSshDispatcher } from './ssh-dispatcher.js';
import { normalizeSshMachineOptions, type NormalizedSshOptions, type SshMachineOptions } from './ssh-options.js';
import { abortable, settlesWithin } from '../../../common/abort.js';
import { startSshProcess } from './ssh-process.js';

/** Reported once when an established SSH connection ends (dropped, failed keepalive, closed). */
export interface LifetimeEndEvent {
  /** The id `lifetime()` returned for that connection. */
  readonly lifetime: string;
  /** What ended it, when it did not end by `close()` or an orderly disconnect. */
  readonly error: Error | undefined;
}
export type LifetimeEndListener = (event: LifetimeEndEvent) => void;

/** One connection lifetime: its connect, then its connection and the dispatcher bound to it. */
class Slot {
  readonly id: string;
  readonly ready: Promise<SshConnection>;
  connection: SshConnection | undefined;
  agent: Agent | undefined;
  dead = false;

  constructor(id: string, open: (slot: Slot) => Promise<SshConnection>) {
    this.id = id;
    this.ready = open(this);
    this.ready.catch(() => {});
  }
}

let lifetimeCounter = 0;

/**
 * A machine reached over SSH (ssh2). One SSH connection at a time, opened on demand; when it
 * drops, the next operation opens a new one with a new `lifetime()` id. Host keys are checked
 * against known_hosts; processes get their `env` over stdin, never on a command line.
 */
export class SshMachine implements Machine {
  readonly identity: string;
  readonly #options: NormalizedSshOptions;
  readonly #pin: HostKeyPin = { key: undefined };
  readonly #listeners = new Set<LifetimeEndListener>();
  #slot: Slot | undefined;
  #closed = false;

  constructor(options: SshMachineOptions) {
    this.#options = normalizeSshMachineOptions(options);
    this.identity = this.#options.identity;
  }

  async lifetime(signal?: AbortSignal): Promise<string> {
    return (await this.#connection(signal)).id;
  }

  /**
   * Calls `listener` each time an established connection ends, so that whatever was bound to
   * that lifetime (MCP sessions, dispatchers) can be dropped. Returns an unsubscribe function.
   */
  onLifetimeEnd(listener: LifetimeEndListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async env(signal?: AbortSignal): Promise<Readonly<Record<string, string>>> {
    return (await this.#connection(signal)).env(signal);
  }

  async homeDir(signal?: AbortSignal): Promise<string> {
    return (await this.#connection(signal)).homeDir(signal);
  }

  async readFile(path: string, signal?: AbortSignal): Promise<string | undefined> {
    return (await this.#connection(signal)).readFile(path, signal);
  }

  async writeFile(path: string, data: string, options: WriteFileOptions, signal?: AbortSignal): Promise<void> {
    const sftp = await (await this.#connection(signal)).sftp(signal);
    await abortable(sftpWriteFile(sftp, this.identity, path, data, options), signal);
  }

  async rename(from: string, to: string, signal?: AbortSignal): Promise<void> {
    const sftp = await (await this.#connection(signal)).sftp(signal);
    await abortable(sftpRename(sftp, this.identity, from, to), signal);
  }

  async mkdir(path: string, mode: number, signal?: AbortSignal): Promise<void> {
    const sftp = await (await this.#connection(signal)).sftp(signal);
    await abortable(sftpMkdir(sftp, this.identity, path, mode), signal);
  }

  async unlink(path: string, signal?: AbortSignal): Promise<void> {
    const sftp = await (await this.#connection(signal)).sftp(signal);
    await abortable(sftpUnlink(sftp, this.identity, path), signal);
  }

  async readLink(path: string, signal?: AbortSignal): Promise<string> {
    const sftp = await (await this.#connection(signal)).sftp(signal);
    return abortable(sftpReadLink(sftp, this.identity, path), signal);
  }

  async realPath(path: string, signal?: AbortSignal): Promise<string> {
    const sftp = await (await this.#connection(signal)).sftp(signal);
    return abortable(sftpRealPath(sftp, this.identity, path), signal);
  }

  async chmod(path: string, mode: number, signal?: AbortSignal): Promise<void> {
    const sftp = await (await this.#connection(signal)).sftp(signal);
    await abortable(sftpChmod(sftp, this.identity, path, mode), signal);
  }

  async spawn(spec: SpawnSpec): Promise<MachineProcess> {
    return startSshProcess(await this.#connection(), spec);
  }

  /**
   * The dispatcher of the current connection lifetime (connecting if needed). It is destroyed
   * when that lifetime ends: ask again for each operation rather than keeping it.
   */
  dispatcher(): Dispatcher {
    const slot = this.#currentSlot();
    slot.agent ??= createSshDispatcher({
      forward: (host, port) => slot.ready.then((connection) => connection.forward(host, port)),
      connectTimeoutMs: this.#options.connectTimeoutMs,
      tls: this.#options.tls,
    });
    return slot.agent;
  }

  async release(): Promise<void> {
    const slot = this.#slot;
    if (this.#closed || !slot?.connection) return;
    // Retire the slot first so that a call made meanwhile opens a fresh connection.
    this.#end(slot, undefined, true);
    await this.#disconnect(slot);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const slot = this.#slot;
    if (!slot) return;
    await this.#disconnect(slot);
  }

  async #disconnect(slot: Slot): Promise<void> {
    slot.agent?.destroy().catch(() => {});
    const connection = slot.connection;
    if (!connection) return;
    connection.close();
    // An orderly disconnect answers at once; a dead peer must not hold close() up.
    await settlesWithin(connection.ended, 2000);
  }

  #connection(signal?: AbortSignal): Promise<SshConnection> {
    try {
      return abortable(this.#currentSlot().ready, signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #currentSlot(): Slot {
    if (this.#closed) throw new BerryError('MACHINE_UNAVAILABLE', `${this.identity} is closed`);
    if (this.#slot && !this.#slot.dead) return this.#slot;
    const id = `${++lifetimeCounter}-${nodeCrypto().randomBytes(6).toString('hex')}`;
    this.#slot = new Slot(id, (slot) => this.#open(slot));
    return this.#slot;
  }

  #open(slot: Slot): Promise<SshConnection> {
    return connectSsh(this.#options, this.#pin).then(
      (client) => {
        if (this.#closed) {
          client.end();
          this.#end(slot, undefined, false);
          throw new BerryError('MACHINE_UNAVAILABLE', `${this.identity} was closed while connecting`);
        }
        const connection = new SshConnection(client, slot.id, this.identity);
        slot.connection = connection;
        void connection.ended.then((error) => this.#end(slot, error, true));
        return connection;
      },
      (error: unknown) => {
        // A failed connect leaves nothing behind: the next call tries again.
        this.#end(slot, undefined, false);
        throw error;
      },
    );
  }

  async fileInfo(path: string, signal?: AbortSignal, options: FileInfoOptions = {}): Promise<FileInfo | undefined> {
    const sftp = await (await this.#connection(signal)).sftp(signal);
    return abortable(sftpFileInfo(sftp, this.identity, path, options.followLinks), signal);
  }

  async userId(signal?: AbortSignal): Promise<number> {
    return abortable(remoteUserId(await this.#connection(signal), signal), signal);
  }

  #end(slot: Slot, error: Error | undefined, established: boolean): void {
    if (slot.dead) return;
    slot.dead = true;
    if (this.#slot === slot) this.#slot = undefined;
    slot.agent?.destroy().catch(() => {});
    if (!established) return;
    for (const listener of this.#listeners) {
      try {
        listener({ lifetime: slot.id, error });
      } catch {
        // A listener's failure is its own; the others still hear about the end.
      }
    }
  }
}
