/**
 * The bubblewrap command line of a confined server, from the machine's facts and the entry's
 * policy. The system directories are mounted read-only one by one into an empty root; the real
 * home, /tmp and /run are left out (tokens, keys, agent sockets), the private home takes the
 * real home's place, and the workspace appears at /workspace.
 */
import * as posix from 'node:path/posix';
import { NAMESPACE_ARGS, type SandboxFacts } from './sandbox-probe.js';
import { SANDBOX_WORKSPACE, type SandboxPolicy } from './sandbox-policy.js';

export interface BwrapInput {
  readonly facts: SandboxFacts;
  readonly policy: SandboxPolicy;
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
  // No capabilities even for root, whose bwrap would otherwise keep them (and could remount /).
  const out = ['--die-with-parent', ...NAMESPACE_ARGS, '--cap-drop', 'ALL'];
  if (!policy.network) out.push('--unshare-net');
  for (const entry of facts.roots) {
    if (entry.kind === 'link') out.push('--symlink', entry.target ?? '', entry.path);
    else if (!HIDDEN.has(entry.path)) out.push('--ro-bind', entry.path, entry.path);
  }
  out.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/run', '--dir', '/home');
  // systemd-resolved systems point /etc/resolv.conf into /run.
  if (facts.present.has('/run/systemd/resolve')) out.push('--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve');
  if (facts.present.has('/var/tmp')) out.push('--tmpfs', '/var/tmp');
  out.push('--bind', policy.home, realHome);
  let chdir = realHome;
  if (policy.workspace !== 'none') {
    out.push(policy.workspace === 'rw' ? '--bind' : '--ro-bind', cwd, SANDBOX_WORKSPACE);
    chdir = SANDBOX_WORKSPACE;
  } else if (visibleAt(cwd, realHome)) {
    // `none` hides the working directory at its own path too, not only at /workspace.
    out.push('--tmpfs', cwd);
  }
  for (const bind of policy.binds) out.push(bind.writable ? '--bind' : '--ro-bind', bind.source, bind.target);
  out.push('--chdir', chdir, '--', input.command, ...input.args);
  return out;
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
