import type { Dispatcher } from 'undici';
import type { FileInfo, FileInfoOptions, Machine, MachineProcess, SpawnSpec, WriteFileOptions } from '../remote/machine/index.js';

/**
 * The target machine as a host sees it while `add` checks a server: reading the config file gives
 * the candidate text (the file with the new entry), so the check runs the very operation `list`
 * runs against the entry as it would be saved, and nothing is written before it passes.
 */
export class CandidateMachine implements Machine {
  readonly #machine: Machine;
  #candidate: { readonly path: string; readonly text: string } | undefined;

  constructor(machine: Machine) {
    this.#machine = machine;
  }

  get identity(): string {
    return this.#machine.identity;
  }

  /** From now on reading `path` gives `text`; `undefined` reads the real file again. */
  propose(candidate: { readonly path: string; readonly text: string } | undefined): void {
    this.#candidate = candidate;
  }

  async readFile(path: string, signal?: AbortSignal): Promise<string | undefined> {
    const candidate = this.#candidate;
    return candidate !== undefined && candidate.path === path ? candidate.text : this.#machine.readFile(path, signal);
  }

  lifetime(signal?: AbortSignal): Promise<string> {
    return this.#machine.lifetime(signal);
  }
  env(signal?: AbortSignal): Promise<Readonly<Record<string, string>>> {
    return this.#machine.env(signal);
  }
  homeDir(signal?: AbortSignal): Promise<string> {
    return this.#machine.homeDir(signal);
  }
  writeFile(path: string, data: string, options: WriteFileOptions, signal?: AbortSignal): Promise<void> {
    return this.#machine.writeFile(path, data, options, signal);
  }
  rename(from: string, to: string, signal?: AbortSignal): Promise<void> {
    return this.#machine.rename(from, to, signal);
  }
  mkdir(path: string, mode: number, signal?: AbortSignal): Promise<void> {
    return this.#machine.mkdir(path, mode, signal);
  }
  unlink(path: string, signal?: AbortSignal): Promise<void> {
    return this.#machine.unlink(path, signal);
  }
  readLink(path: string, signal?: AbortSignal): Promise<string> {
    return this.#machine.readLink(path, signal);
  }
  realPath(path: string, signal?: AbortSignal): Promise<string> {
    return this.#machine.realPath(path, signal);
  }
  chmod(path: string, mode: number, signal?: AbortSignal): Promise<void> {
    return this.#machine.chmod(path, mode, signal);
  }
  spawn(spec: SpawnSpec): Promise<MachineProcess> {
    return this.#machine.spawn(spec);
  }
  dispatcher(): Dispatcher {
    return this.#machine.dispatcher();
  }
  release(): Promise<void> {
    return this.#machine.release();
  }
  close(): Promise<void> {
    return this.#machine.close();
  }
  fileInfo(path: string, signal?: AbortSignal, options?: FileInfoOptions): Promise<FileInfo | undefined> {
    return this.#machine.fileInfo(path, signal, options);
  }
  userId(signal?: AbortSignal): Promise<number> {
    return this.#machine.userId(signal);
  }
}
