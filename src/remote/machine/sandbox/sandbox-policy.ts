/**
 * How one stdio server is confined under bubblewrap: the resolved `sandbox` block of its entry.
 * Every path is absolute and belongs to the target machine.
 */

/** One extra mount, `"HOST"` or `"HOST:SANDBOX"` of `roBinds` / `rwBinds`. */
export interface SandboxBind {
  /** Path on the target machine; it must exist. */
  readonly source: string;
  /** Path inside the sandbox. */
  readonly target: string;
  readonly writable: boolean;
}

export interface SandboxPolicy {
  /** `on`: confined or not started; `auto`: confined when bubblewrap is usable, else unconfined and said so. */
  readonly mode: 'on' | 'auto';
  /** Share the machine's network namespace. @default true */
  readonly network: boolean;
  /** How the entry's working directory appears at `/workspace`. @default 'ro' */
  readonly workspace: 'ro' | 'rw' | 'none';
  /** Extra mounts, parents before what they contain (stable otherwise). */
  readonly binds: readonly SandboxBind[];
  /** Names of the machine's environment variables forwarded when set. */
  readonly envPass: readonly string[];
  /** The private, persistent HOME on the target machine (`~/.config/berry/mcp-homes/<name>`). */
  readonly home: string;
  /**
   * The rw mounts (working directory, rwBinds) of the other confined entries of the same config:
   * places another confined server can write. Not part of the connection key.
   */
  readonly othersWritable?: readonly string[];
}

/**
 * The host uid and gid a confined server runs as when berry-mcp is root (nobody/nogroup): it owns
 * nothing. As an ordinary user the server keeps the user's host uid and is this uid inside its
 * user namespace.
 */
export const CONFINED_ID = 65534;

/** Where a server's private home lives, relative to the machine's home directory. */
export const SANDBOX_HOMES_DIR = '.config/berry/mcp-homes';

/** The working directory inside the sandbox (the entry's `cwd`, unless `workspace` is `none`). */
export const SANDBOX_WORKSPACE = '/workspace';
