import type { ChildProcess } from 'node:child_process';
import { homedir } from 'node:os';
import type { Agent, Dispatcher } from 'undici';
import { childEnv } from './child-env.js';
import { failedProcess } from './failed-process.js';
import { loadUndici } from './lazy-modules.js';
import type { FileInfo, FileInfoOptions, Machine, MachineProcess, ProcessExit, SpawnSpec, WriteFileOptions } from './machine.js';
import { closePins, openPins, pinnedStdio } from './pinned-fds.js';
import { UnchangedFiles } from './unchanged-file.js';
import { nodeChildProcess, nodeFsPromises } from '../../common/lazy-node.js';

/** The machine berry-mcp itself runs on. */
export class LocalMachine implements Machine {
  readonly identity = 'local';
  #agent: Agent | undefined;
  readonly #files = new UnchangedFiles();

  async lifetime(): Promise<string> {
    return 'local';
  }

  // process.env itself: lookups happen per variable, so rereading the config stays cheap.
  async env(): Promise<Readonly<Record<string, string>>> {
    return process.env as Readonly<Record<string, string>>;
  }

  async homeDir(): Promise<string> {
    return homedir();
  }

  // Synchronous on purpose: the config is reread on every operation, and for a small file a sync
  // read costs ~7 µs here against ~95 µs for fs.promises.readFile (a proven-unchanged one ~2 µs).
  async readFile(path: string, signal?: AbortSignal): Promise<string | undefined> {
    signal?.throwIfAborted();
    return this.#files.read(path);
  }

  async writeFile(path: string, data: string, options: WriteFileOptions, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    await nodeFsPromises().writeFile(path, data, { mode: options.mode, flag: options.exclusive ? 'wx' : 'w' });
  }

  async rename(from: string, to: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    await nodeFsPromises().rename(from, to);
  }

  async mkdir(path: string, mode: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const created = await nodeFsPromises().mkdir(path, { recursive: true, mode });
    // mkdir's mode is masked by the umask; the innermost directory gets exactly `mode`.
    if (created !== undefined) await nodeFsPromises().chmod(path, mode);
  }

  async unlink(path: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    try {
      await nodeFsPromises().unlink(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  async readLink(path: string, signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    return nodeFsPromises().readlink(path);
  }

  async realPath(path: string, signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    return nodeFsPromises().realpath(path);
  }

  async chmod(path: string, mode: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    await nodeFsPromises().chmod(path, mode);
  }

  async spawn(spec: SpawnSpec): Promise<MachineProcess> {
    const pins = spec.pins ?? [];
    const opened = openPins(pins, spec.command);
    if ('error' in opened) return failedProcess(opened.error);
    let child: ChildProcess;
    try {
      child = nodeChildProcess().spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: spec.clearEnv ? { ...spec.env } : childEnv(spec.env),
        // A new session makes the child a process-group leader, so the whole group can be killed.
        detached: true,
        stdio: pinnedStdio(pins, opened.fds),
        windowsHide: true,
      });
    } finally {
      // The child holds its own copies from here on.
      closePins(opened.fds);
    }
    const exited = new Promise<ProcessExit>((resolve) => {
      child.once('error', (error) => resolve({ code: undefined, signal: undefined, error }));
      child.once('exit', (code, signal) => resolve({ code: code ?? undefined, signal: signal ?? undefined, error: undefined }));
    });
    const pid = child.pid;
    return {
      pid,
      // The first three are pipes: never null.
      stdin: child.stdin!,
      stdout: child.stdout!,
      stderr: child.stderr!,
      exited,
      killGroup(signal) {
        if (pid === undefined) return;
        try {
          process.kill(-pid, signal);
        } catch {
          // ESRCH: the whole group is already gone.
        }
      },
    };
  }

  dispatcher(): Dispatcher {
    // undici's default idle time (4 s) stays below node:http's 5 s idle close, which servers'
    // event-stream replies do not announce with a Keep-Alive header.
    this.#agent ??= new (loadUndici().Agent)();
    return this.#agent;
  }

  async release(): Promise<void> {
    // Nothing to reconnect locally.
  }

  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    await agent?.close();
  }

  async fileInfo(path: string, signal?: AbortSignal, options: FileInfoOptions = {}): Promise<FileInfo | undefined> {
    signal?.throwIfAborted();
    try {
      const fs = nodeFsPromises();
      const stats = await (options.followLinks ? fs.stat(path) : fs.lstat(path));
      const type = stats.isSymbolicLink() ? 'symlink' : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
      return { type, uid: stats.uid, mode: stats.mode & 0o7777 };
    } catch (error) {
      // ENOTDIR: a path below a file, where nothing can be either.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  async userId(): Promise<number> {
    return process.getuid?.() ?? -1;
  }
}
