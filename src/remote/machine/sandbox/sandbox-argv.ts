/**
 * The bubblewrap command line of a confined server, from the machine's facts, the entry's policy
 * and the start's checked mounts. The system directories are mounted read-only one by one into an
 * empty root; the real home, /tmp and /run are left out (tokens, keys, agent sockets), the private
 * home takes the real home's place, and the workspace appears at /workspace. A mount with a
 * descriptor is mounted from it (`--bind-fd`): what was checked, not what its path names by then.
 */
import * as posix from 'node:path/posix';
import { commandPrefix, identityArgs, type SandboxIdentity } from './sandbox-identity.js';
import type { PlannedMount } from './sandbox-mounts.js';
import { NAMESPACE_ARGS, type SandboxFacts } from './sandbox-probe.js';
import { SANDBOX_WORKSPACE, type SandboxPolicy } from './sandbox-policy.js';

export interface BwrapInput {
  readonly facts: SandboxFacts;
  readonly policy: Pick<SandboxPolicy, 'network' | 'workspace'>;
  readonly identity: SandboxIdentity;
  /** In order: the private home, the workspace (unless `none`), the binds. */
  readonly mounts: readonly Pick<PlannedMount, 'real' | 'target' | 'writable' | 'role' | 'fd'>[];
  /** The user's home on the machine: the private home is mounted there (HOME keeps its value). */
  readonly realHome: string;
  /** The entry's working directory on the machine. */
  readonly cwd: string;
  readonly command: string;
  readonly args: readonly string[];
}

/** Top-level directories never mounted from the machine: hidden, or replaced by private ones. */
const HIDDEN = new Set(['/home', '/root', '/tmp', '/run', '/proc', '/dev', '/lost+found', SANDBOX_WORKSPACE]);

/** The arguments after `bwrap` (the command and its arguments at the end, after `--`). */
export function bwrapArgs(input: BwrapInput): string[] {
  const { facts, policy, realHome, cwd } = input;
  // The server keeps no capability, as root neither (it could remount /): sandbox-identity.ts.
  const out = ['--die-with-parent', ...NAMESPACE_ARGS, ...identityArgs(input.identity.kind)];
  if (!policy.network) out.push('--unshare-net');
  for (const entry of facts.roots) {
    if (entry.kind === 'link') out.push('--symlink', entry.target ?? '', entry.path);
    else if (!HIDDEN.has(entry.path)) out.push('--ro-bind', entry.path, entry.path);
  }
  out.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/run', '--dir', '/home');
  // systemd-resolved systems point /etc/resolv.conf into /run.
  if (facts.present.has('/run/systemd/resolve')) out.push('--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve');
  if (facts.present.has('/var/tmp')) out.push('--tmpfs', '/var/tmp');
  let chdir = realHome;
  const systemDirs = new Set(facts.roots.filter((entry) => entry.kind === 'dir' && !HIDDEN.has(entry.path)).map((entry) => entry.path));
  const mounted: string[] = [];
  for (const mount of input.mounts) {
    out.push(...parentDirArgs(mount.target, systemDirs, mounted), ...mountArgs(mount));
    mounted.push(mount.target);
    if (mount.role === 'workspace') chdir = SANDBOX_WORKSPACE;
    // `none` hides the working directory at its own path too, not only at /workspace (binds come after).
    if (mount.role === 'home' && policy.workspace === 'none' && visibleAt(cwd, realHome)) {
      out.push(...parentDirArgs(cwd, systemDirs, mounted), '--tmpfs', cwd);
      mounted.push(cwd);
    }
  }
  out.push('--chdir', chdir, '--', ...commandPrefix(input.identity), input.command, ...input.args);
  return out;
}

/**
 * The folders above a mount point that exist only inside the sandbox (in its tmpfs root, /tmp, /run,
 * /home): made 0755 here, since bwrap running as root makes them 0700 and a server run as uid 65534
 * could not pass them to reach its mount. Folders from the machine (a system mount, an earlier
 * mount) keep their own modes.
 */
function parentDirArgs(target: string, systemDirs: ReadonlySet<string>, mounted: readonly string[]): string[] {
  const parts = target.split('/').filter(Boolean);
  if (parts.length < 2 || systemDirs.has(`/${parts[0]}`)) return [];
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) {
    const dir = `/${parts.slice(0, i).join('/')}`;
    if (mounted.some((earlier) => within(dir, earlier))) continue;
    out.push('--perms', '0755', '--dir', dir);
  }
  return out;
}

function mountArgs(mount: BwrapInput['mounts'][number]): string[] {
  if (mount.fd !== undefined) return [mount.writable ? '--bind-fd' : '--ro-bind-fd', String(mount.fd), mount.target];
  return [mount.writable ? '--bind' : '--ro-bind', mount.real, mount.target];
}

/** True when `path` would show through a read-only system mount (and is not a system directory itself). */
function visibleAt(path: string, realHome: string): boolean {
  const parts = path.split('/').filter(Boolean);
  if (parts.length < 2 || within(path, realHome)) return false;
  return ![...HIDDEN].some((hidden) => within(path, hidden));
}

function within(path: string, dir: string): boolean {
  const relative = posix.relative(dir, path);
  return relative === '' || (!relative.startsWith('..') && !posix.isAbsolute(relative));
}
