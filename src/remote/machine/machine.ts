import type { Readable, Writable } from 'node:stream';
import type { Dispatcher } from 'undici';

/** What to run on a machine. `env` holds additions to the machine's own environment. */
export interface SpawnSpec {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to (and overriding) the machine's inherited environment. Never put on a command line. */
  readonly env: Readonly<Record<string, string>>;
  /** Absolute working directory on the machine. */
  readonly cwd: string;
  /** `env` is the whole environment: nothing of the machine's is inherited (a confined server). */
  readonly clearEnv?: boolean;
  /**
   * Paths opened by the machine before the command starts and handed to it as file descriptors
   * (bubblewrap's `--bind-fd`). Each path must be free of symlinks: the start fails (the exit's
   * `error`, code `EBINDMOVED`) when what was opened is not at that path any more.
   */
  readonly pins?: readonly PinnedPath[];
}

/** A path the command receives open, as descriptor `fd`. */
export interface PinnedPath {
  /** 3 to {@link MAX_PINNED_FD} (a POSIX shell names no higher descriptor), each used once. */
  readonly fd: number;
  /** Absolute, normalized, without symlinks. */
  readonly path: string;
}

/** The highest descriptor a pin may use, on every machine (dash only knows 0–9). */
export const MAX_PINNED_FD = 9;

export interface ProcessExit {
  /**
   * Exit code; undefined when the process was killed by a signal, or never started locally. A
   * remote start failure carries the shell's code (127 command not found, 126 no such cwd) and `error`.
   */
  readonly code: number | undefined;
  readonly signal: string | undefined;
  /** Set when the process could not be started at all (e.g. ENOENT). */
  readonly error: Error | undefined;
}

/** A process running in its own process group on some machine. */
export interface MachineProcess {
  /** The process (and process-group) id on its machine, when known. */
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles once when the process has exited (or failed to start). Never rejects. */
  readonly exited: Promise<ProcessExit>;
  /** Sends `signal` to the whole process group, escaped descendants included. Never throws. */
  killGroup(signal: 'SIGTERM' | 'SIGKILL'): void;
}

export interface WriteFileOptions {
  /** Permission bits for a new file, e.g. 0o600. */
  readonly mode: number;
  /** Fail with code `EEXIST` instead of replacing an existing file (a lock file). */
  readonly exclusive?: boolean;
}

export interface FileInfoOptions {
  /** Report what a symlink names (stat) instead of the link itself (lstat). @default false */
  readonly followLinks?: boolean;
}

/** What `fileInfo` reports about a path, without following a symlink there (lstat). */
export interface FileInfo {
  readonly type: 'file' | 'directory' | 'symlink' | 'other';
  /** The owner's user id on the machine. */
  readonly uid: number;
  /** Permission bits (`mode & 0o7777`). */
  readonly mode: number;
}

/**
 * Where things happen: the local machine or a remote one. Config files, `${VAR}` values,
 * stdio servers and HTTP requests all belong to the target machine.
 */
export interface Machine {
  /** Stable identity of the machine (e.g. `local`, `ssh:user@host:22`). */
  readonly identity: string;
  /**
   * Makes sure the machine is reachable and returns the id of the current connection lifetime.
   * It changes when the underlying connection (SSH) is replaced; constant for the local machine.
   */
  lifetime(signal?: AbortSignal): Promise<string>;
  /** The login environment of the machine (read once per connection lifetime). */
  env(signal?: AbortSignal): Promise<Readonly<Record<string, string>>>;
  /** The home directory of the user on the machine. */
  homeDir(signal?: AbortSignal): Promise<string>;
  /** Reads a UTF-8 file; `undefined` when it does not exist. */
  readFile(path: string, signal?: AbortSignal): Promise<string | undefined>;
  /**
   * Writes a UTF-8 file created with `mode` (umask applies). It is truncated if it exists, unless
   * `exclusive`: then an existing file fails with an error whose `code` is `EEXIST`. Not atomic by
   * itself: write a temporary file and `rename` it over the target for that.
   */
  writeFile(path: string, data: string, options: WriteFileOptions, signal?: AbortSignal): Promise<void>;
  /** Renames atomically, replacing `to` if it exists (POSIX rename). */
  rename(from: string, to: string, signal?: AbortSignal): Promise<void>;
  /** Creates a directory and its missing parents with `mode`; existing ones are left as they are. */
  mkdir(path: string, mode: number, signal?: AbortSignal): Promise<void>;
  /** Removes a file; a file that does not exist is not an error. */
  unlink(path: string, signal?: AbortSignal): Promise<void>;
  /** What the symlink at `path` names, as stored (a relative target is relative to the link's folder). */
  readLink(path: string, signal?: AbortSignal): Promise<string>;
  /** The absolute path `path` names with every symlink, `.` and `..` resolved; it must exist. */
  realPath(path: string, signal?: AbortSignal): Promise<string>;
  /** Sets the permission bits of `path` to `mode` exactly (no umask), following a symlink. */
  chmod(path: string, mode: number, signal?: AbortSignal): Promise<void>;
  /** Starts a process in its own process group. Startup failures surface through `exited`. */
  spawn(spec: SpawnSpec): Promise<MachineProcess>;
  /** An undici dispatcher whose connections originate from the machine (its DNS, its localhost). */
  dispatcher(): Dispatcher;
  /**
   * Ends the current connection (SSH), if any, without closing the machine: the next call
   * reconnects with a new lifetime. Used when nothing has run on the machine for a while.
   */
  release(): Promise<void>;
  /** Releases the machine's own resources (an SSH connection) for good. Idempotent. */
  close(): Promise<void>;
  /**
   * What is at `path`; `undefined` when nothing is. lstat by default (a symlink is reported as one: the
   * token store refuses links); stat with `followLinks` (a sandbox's bind source is what a link names).
   */
  fileInfo(path: string, signal?: AbortSignal, options?: FileInfoOptions): Promise<FileInfo | undefined>;
  /** The user id berry-mcp acts as on the machine (the SSH login's, remotely); -1 where there are none (Windows). */
  userId(signal?: AbortSignal): Promise<number>;
}
