/**
 * The mounts of one start, resolved and checked on the target machine just before it: the private
 * home, the workspace and the binds, each resolved without a symlink a confined server could have
 * placed (trusted-path.ts), each mount point inside an earlier mount checked the same way, and
 * descriptors assigned so that bwrap mounts what was checked (`--bind-fd`), not what a path names later.
 */
import * as posix from 'node:path/posix';
import { SandboxUnavailableError } from '../../../common/errors.js';
import { MAX_PINNED_FD, type FileInfo, type Machine, type PinnedPath } from '../machine.js';
import { SANDBOX_WORKSPACE, type SandboxPolicy } from './sandbox-policy.js';
import { prefetch, resolveTrusted, within, type InfoCache, type TrustContext, type TrustedPath } from './trusted-path.js';

/** One mount, in bwrap's order. */
export interface PlannedMount {
  /** For messages: `the private home`, `the bind /a:/b (rwBinds)`. */
  readonly what: string;
  /** The path as configured. */
  readonly source: string;
  /** The same object without symlinks, on the machine. */
  readonly real: string;
  readonly target: string;
  readonly writable: boolean;
  readonly role: 'home' | 'workspace' | 'bind';
  readonly info: FileInfo;
  /** A confined server can change some component of `real`. */
  readonly exposed: boolean;
  /** The descriptor bwrap gets it as, when pinned. */
  readonly fd: number | undefined;
}

export interface MountPlan {
  readonly mounts: readonly PlannedMount[];
  readonly pins: readonly PinnedPath[];
}

export interface MountInput {
  readonly machine: Machine;
  readonly server: string;
  readonly policy: SandboxPolicy;
  readonly cwd: string;
  readonly realHome: string;
  /** The uid berry-mcp acts as on the machine. */
  readonly self: number;
  /** Other paths the start checks with the same rule (bwrap's): fetched along. */
  readonly alsoCheck?: readonly string[];
  readonly signal?: AbortSignal | undefined;
}

const FIRST_PIN_FD = 3;

/** What a confined server can change on the machine, for this entry (as a user: its rw mounts and its config's). */
export async function trustContext(input: MountInput, cache: InfoCache): Promise<TrustContext> {
  const { machine, policy, signal } = input;
  const wanted = wantedMounts(input);
  prefetch(machine, [...wanted.map((mount) => mount.source), ...(policy.othersWritable ?? []), ...(input.alsoCheck ?? [])], cache, signal);
  const base: TrustContext = { self: input.self, serversAreSelf: input.self !== 0, writable: [], homesDir: posix.dirname(policy.home) };
  // As an ordinary user, servers share the user's uid: what they can write is what their rw mounts reach.
  return base.serversAreSelf ? { ...base, writable: await writablePlaces(machine, wanted, policy, base, cache, signal) } : base;
}

export async function planMounts(input: MountInput, context: TrustContext, cache: InfoCache): Promise<MountPlan> {
  const { machine, signal } = input;
  const wanted = wantedMounts(input);
  const resolved = await Promise.all(wanted.map((mount) => resolveTrusted(machine, mount.source, context, cache, signal)));
  const mounts: PlannedMount[] = [];
  for (const [index, mount] of wanted.entries()) {
    const found = resolved[index]!;
    if (found.kind !== 'found') throw refusal(input, machine, mount.what, mount.source, found);
    if (mount.writable) refuseOwnState(input, mount.what, found.real, context);
    mounts.push({ ...mount, real: found.real, info: found.info, exposed: found.exposed, fd: undefined });
  }
  await checkMountPoints(input, mounts, context, cache);
  return assignPins(input, mounts);
}

type WantedMount = Pick<PlannedMount, 'what' | 'source' | 'target' | 'writable' | 'role'>;

function wantedMounts(input: MountInput): WantedMount[] {
  const { policy } = input;
  const out: WantedMount[] = [{ what: 'the private home', source: policy.home, target: input.realHome, writable: true, role: 'home' }];
  if (policy.workspace !== 'none') {
    out.push({
      what: `the working directory (workspace "${policy.workspace}", mounted at ${SANDBOX_WORKSPACE})`,
      source: input.cwd,
      target: SANDBOX_WORKSPACE,
      writable: policy.workspace === 'rw',
      role: 'workspace',
    });
  }
  for (const bind of policy.binds) {
    out.push({
      what: `the bind ${bind.source}:${bind.target} (${bind.writable ? 'rwBinds' : 'roBinds'})`,
      source: bind.source,
      target: bind.target,
      writable: bind.writable,
      role: 'bind',
    });
  }
  return out;
}

/** Real paths of the rw mounts of this entry and of the other confined entries of its config. */
async function writablePlaces(
  machine: Machine,
  wanted: readonly WantedMount[],
  policy: SandboxPolicy,
  base: TrustContext,
  cache: InfoCache,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const sources = [...wanted.filter((mount) => mount.writable && mount.role !== 'home').map((mount) => mount.source), ...(policy.othersWritable ?? [])];
  const places = new Set<string>(sources);
  // Twice: a place inside another is only judged right once the outer one is known.
  for (let round = 0; round < 2; round += 1) {
    const context = { ...base, writable: [...places] };
    for (const found of await Promise.all(sources.map((source) => resolveTrusted(machine, source, context, cache, signal)))) {
      if (found.kind !== 'untrusted-link') places.add(found.real);
    }
  }
  return [...places];
}

/** A mount point inside an earlier mount is made on the host by bwrap, through that mount's directory. */
async function checkMountPoints(input: MountInput, mounts: readonly PlannedMount[], context: TrustContext, cache: InfoCache): Promise<void> {
  for (const [index, mount] of mounts.entries()) {
    const outer = mounts
      .slice(0, index)
      .reverse()
      .find((earlier) => earlier.target !== mount.target && within(mount.target, earlier.target));
    if (outer?.info.type !== 'directory') continue;
    const hostPath = posix.join(outer.real, posix.relative(outer.target, mount.target));
    const found = await resolveTrusted(input.machine, hostPath, context, cache, input.signal);
    if (found.kind === 'untrusted-link') {
      throw symlinkRefusal(input, `${mount.what}, whose mount point ${mount.target} lies inside ${outer.what},`, hostPath, found);
    }
  }
}

/** Exposed mounts first: those are the ones a path could be swapped under; the rest while descriptors last. */
function assignPins(input: MountInput, mounts: PlannedMount[]): MountPlan {
  const order = [...mounts.keys()].sort((a, b) => Number(mounts[b]!.exposed) - Number(mounts[a]!.exposed) || a - b);
  const slots = MAX_PINNED_FD - FIRST_PIN_FD + 1;
  const exposed = mounts.filter((mount) => mount.exposed).length;
  if (exposed > slots) {
    throw new SandboxUnavailableError(
      `Server "${input.server}" was not started: ${exposed} of its mounts lie where a confined server can change them, and at most ${slots} can be pinned on ${input.machine.identity} (sandbox cause: too-many-binds). Use fewer binds inside rw mounts or private homes.`,
      { server: input.server, reason: 'too-many-binds' },
    );
  }
  const pins: PinnedPath[] = [];
  for (const index of order.slice(0, slots)) {
    const fd = FIRST_PIN_FD + pins.length;
    mounts[index] = { ...mounts[index]!, fd };
    pins.push({ fd, path: mounts[index]!.real });
  }
  return { mounts, pins };
}

/** A rw mount that holds berry-mcp's own config and state (~/.config/berry) lets a server rewrite its own confinement. */
function refuseOwnState(input: MountInput, what: string, real: string, context: TrustContext): void {
  const own = posix.dirname(context.homesDir);
  if (!within(own, real)) return;
  throw new SandboxUnavailableError(
    `Server "${input.server}" was not started: ${what} is writable and contains ${own}, berry-mcp's own config, tokens and private homes on ${input.machine.identity}: the server could rewrite its own sandbox (sandbox cause: bind-permission). Mount a directory that does not contain it.`,
    { server: input.server, reason: 'bind-permission', path: real },
  );
}

function refusal(input: MountInput, machine: Machine, what: string, source: string, found: Exclude<TrustedPath, { kind: 'found' }>): SandboxUnavailableError {
  if (found.kind === 'untrusted-link') return symlinkRefusal(input, what, source, found);
  return new SandboxUnavailableError(
    `Server "${input.server}" was not started: ${what} ${source} does not exist on ${machine.identity}${found.real === source ? '' : ` (${found.real} is missing)`} (sandbox cause: bind-missing). Create the path, or fix it in the entry's "sandbox" block.`,
    { server: input.server, reason: 'bind-missing', path: source },
  );
}

function symlinkRefusal(input: MountInput, what: string, path: string, found: Extract<TrustedPath, { kind: 'untrusted-link' }>): SandboxUnavailableError {
  const at = found.link === path ? 'is the symlink' : `passes through the symlink ${found.link}`;
  return new SandboxUnavailableError(
    `Server "${input.server}" was not started: ${what} ${path} ${at} (-> ${JSON.stringify(found.target.slice(0, 200))}) in ${found.dir} on ${input.machine.identity}, ` +
      'where a confined server (or a user other than root and you) can change it (sandbox cause: bind-symlink). ' +
      'A confined server may have put it there to choose its own mounts: if you did not make it, remove it; if you did, write the path it leads to in the entry\'s "sandbox" block instead.',
    { server: input.server, reason: 'bind-symlink', path, symlink: found.link },
  );
}
