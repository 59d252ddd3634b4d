/**
 * Turns the spawn of a stdio server into the spawn of the same server under bubblewrap on its
 * target machine, or refuses: a server that must be confined and cannot be never starts
 * unconfined (`MCP_SANDBOX_UNAVAILABLE`). Only `mode: "auto"` runs it as is when bwrap is absent.
 */
import { SandboxUnavailableError, type SandboxUnavailableReason } from '../../common/errors.js';
import type { Machine, SpawnSpec } from '../machine.js';
import { bwrapArgs } from './sandbox-argv.js';
import type { SandboxIdentity } from './sandbox-identity.js';
import { planMounts, type MountPlan } from './sandbox-mounts.js';
import { CONFINED_ID, type SandboxPolicy } from './sandbox-policy.js';
import { preflightAsRoot } from './sandbox-preflight.js';
import { ensureHome, probeSandbox, type SandboxFacts } from './sandbox-probe.js';
import { resolveTrusted } from './trusted-path.js';

/** PATH of a server whose machine has none. */
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';
/** What a confined server sees of the machine's environment besides its entry's `env` and `envPass`. */
const BASELINE = ['PATH', 'LANG'] as const;

/**
 * The spec to spawn for server `server`: `spec` itself without a policy, or with `auto` when
 * bubblewrap is unusable; otherwise bwrap with the server as its command and a cleared environment.
 */
export async function confineSpawnSpec(
  machine: Machine,
  server: string,
  spec: SpawnSpec,
  policy: SandboxPolicy | undefined,
  signal?: AbortSignal,
): Promise<SpawnSpec> {
  if (!policy) return spec;
  const machineEnv = await machine.env(signal);
  const path = spec.env['PATH'] ?? machineEnv['PATH'] ?? DEFAULT_PATH;
  const self = await machine.userId(signal);
  const kind = self === 0 ? 'root' : 'user';
  const facts = await probeSandbox(machine, path, kind, signal);
  const unusable = unusableReason(facts, policy, kind);
  if (unusable) {
    if (policy.mode === 'auto') return spec;
    throw unavailable(machine, server, unusable.reason, unusable.detail);
  }
  await ensureHome(machine, policy.home, signal);
  const realHome = await machine.homeDir(signal);
  // Resolved and checked at every start: a confined server may have changed its mounts' paths since the last.
  const plan = await planMounts({ machine, server, policy, cwd: spec.cwd, realHome, self, signal });
  await trustBwrap(machine, server, facts.bwrap!, plan, signal);
  const identity: SandboxIdentity = kind === 'root' ? { kind, setpriv: facts.setpriv! } : { kind };
  if (identity.kind === 'root') await preflightAsRoot(machine, server, plan, identity.setpriv, signal);
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name of [...BASELINE, ...policy.envPass]) {
    const value = machineEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, { PATH: path, HOME: realHome, TMPDIR: '/tmp' }, spec.env);
  return {
    command: facts.bwrap!,
    args: bwrapArgs({ facts, policy, identity, mounts: plan.mounts, realHome, cwd: spec.cwd, command: spec.command, args: spec.args }),
    env,
    cwd: '/',
    clearEnv: true,
    pins: plan.pins,
  };
}

/** bwrap runs outside the sandbox (as root, for root): refuse one a confined server could have replaced. */
async function trustBwrap(machine: Machine, server: string, bwrap: string, plan: MountPlan, signal: AbortSignal | undefined): Promise<void> {
  const found = await resolveTrusted(machine, bwrap, plan.context, plan.cache, signal);
  const { self } = plan.context;
  const safe = found.kind === 'found' && !found.exposed && (found.info.uid === 0 || found.info.uid === self) && (found.info.mode & 0o022) === 0;
  if (safe) return;
  throw new SandboxUnavailableError(
    `Server "${server}" must run confined and was not started: bubblewrap was found at ${bwrap} on ${machine.identity}, where a confined server or another user can replace it (sandbox cause: bwrap-untrusted). ` +
      "Install bwrap in a system directory and leave that directory out of the server's PATH, or make it and its directories owned by root and not writable by others.",
    { server, reason: 'bwrap-untrusted', path: bwrap },
  );
}

/**
 * For `mode: "auto"`: why the server runs unconfined (a line for `list`), or undefined when it is
 * confined. Uses the same probe as the start, so it costs nothing more once a server started.
 */
export async function unconfinedNote(machine: Machine, spec: Pick<SpawnSpec, 'env'>, policy: SandboxPolicy | undefined, signal?: AbortSignal): Promise<string | undefined> {
  if (policy?.mode !== 'auto') return undefined;
  const path = spec.env['PATH'] ?? (await machine.env(signal))['PATH'] ?? DEFAULT_PATH;
  const kind = (await machine.userId(signal)) === 0 ? 'root' : 'user';
  const unusable = unusableReason(await probeSandbox(machine, path, kind, signal), policy, kind);
  if (!unusable) return undefined;
  return `not confined: ${unusable.detail} on ${machine.identity} (sandbox mode "auto", cause ${unusable.reason}). ${FIXES[unusable.reason]}, or set "mode": "on" to refuse to run it unconfined`;
}

function unusableReason(facts: SandboxFacts, policy: SandboxPolicy, kind: SandboxIdentity['kind']): { reason: SandboxUnavailableReason; detail: string } | undefined {
  if (facts.bwrap === undefined) return { reason: 'bwrap-missing', detail: "bubblewrap (bwrap) is not on the server's PATH" };
  if (kind === 'root' && facts.setpriv === undefined) {
    return { reason: 'setpriv-missing', detail: `setpriv (util-linux), which drops a server to uid ${CONFINED_ID} when berry-mcp is root, is not in ${'/usr/sbin, /usr/bin, /sbin or /bin'}` };
  }
  const refused = facts.refused ?? (policy.network ? undefined : facts.netRefused);
  if (refused === undefined) return undefined;
  return { reason: 'namespace-refused', detail: `the kernel refused bubblewrap's namespaces${policy.network ? '' : ' (network included)'}: ${refused.slice(0, 300)}` };
}

const FIXES: Readonly<Record<SandboxUnavailableReason, string>> = {
  'bwrap-missing': 'Install bubblewrap there (Debian/Ubuntu: apt-get install bubblewrap)',
  'namespace-refused': 'Allow unprivileged user namespaces there (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0)',
  'bind-missing': 'Create the path, or fix it in the entry\'s "sandbox" block',
  'setpriv-missing': 'Install util-linux there (Debian/Ubuntu: it is essential; Alpine: apk add setpriv)',
  // The causes below come with their own message.
  'bind-symlink': 'Remove the symlink, or write the path it leads to',
  'bind-permission': 'Give uid 65534 the right, or mount it read-only',
  'bwrap-untrusted': 'Install bwrap in a system directory',
  'too-many-binds': 'Use fewer binds inside rw mounts',
};

function unavailable(machine: Machine, server: string, reason: SandboxUnavailableReason, detail: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `Server "${server}" must run confined and was not started: ${detail} on ${machine.identity} (sandbox cause: ${reason}). ${FIXES[reason]}, or set "sandbox": {"mode": "off"} to accept running it unconfined.`,
    { server, reason },
  );
}
