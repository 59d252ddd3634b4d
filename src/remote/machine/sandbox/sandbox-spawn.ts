/**
 * Turns the spawn of a stdio server into the spawn of the same server under bubblewrap on its
 * target machine, or refuses: a server that must be confined and cannot be never starts
 * unconfined (`MCP_SANDBOX_UNAVAILABLE`). Only `mode: "auto"` runs it as is when bwrap is absent.
 */
import { SandboxUnavailableError, type SandboxUnavailableReason } from '../../../common/errors.js';
import type { Machine, SpawnSpec } from '../machine.js';
import { bwrapArgs } from './sandbox-argv.js';
import type { SandboxIdentity } from './sandbox-identity.js';
import { locateBwrap, trustBwrap } from './sandbox-bwrap.js';
import { planMounts, trustContext, type MountInput } from './sandbox-mounts.js';
import { CONFINED_ID, type SandboxPolicy } from './sandbox-policy.js';
import { preflightAsRoot } from './sandbox-preflight.js';
import { ensureHome, probeSandbox, type SandboxFacts } from './sandbox-probe.js';
import { createInfoCache, forget } from './trusted-path.js';

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
  const bwrap = await locateBwrap(machine, path, signal);
  if (bwrap === undefined) return unusable(machine, server, spec, policy, BWRAP_MISSING);
  // Checked at every start, before anything runs bwrap: a confined server may have changed its mounts' paths, or planted a bwrap.
  const realHome = await machine.homeDir(signal);
  const input: MountInput = { machine, server, policy, cwd: spec.cwd, realHome, self, alsoCheck: [bwrap], signal };
  const cache = createInfoCache();
  const context = await trustContext(input, cache);
  await trustBwrap(machine, server, bwrap, context, cache, signal);
  const facts = await probeSandbox(machine, bwrap, kind, signal);
  const refused = unusableReason(facts, policy, kind);
  if (refused) return unusable(machine, server, spec, policy, refused);
  await ensureHome(machine, policy.home, signal);
  forget(cache, policy.home);
  const plan = await planMounts(input, context, cache);
  const identity: SandboxIdentity = kind === 'root' ? { kind, setpriv: facts.setpriv! } : { kind };
  if (identity.kind === 'root') await preflightAsRoot(machine, server, plan, identity.setpriv, signal);
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name of [...BASELINE, ...policy.envPass]) {
    const value = machineEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, { PATH: path, HOME: realHome, TMPDIR: '/tmp' }, spec.env);
  return {
    command: bwrap,
    args: bwrapArgs({ facts, policy, identity, mounts: plan.mounts, realHome, cwd: spec.cwd, command: spec.command, args: spec.args }),
    env,
    cwd: '/',
    clearEnv: true,
    pins: plan.pins,
  };
}

/** `auto` runs the server as it is when bubblewrap is unusable; `on` refuses. */
function unusable(machine: Machine, server: string, spec: SpawnSpec, policy: SandboxPolicy, why: Unusable): SpawnSpec {
  if (policy.mode === 'auto') return spec;
  throw unavailable(machine, server, why.reason, why.detail);
}

/**
 * For `mode: "auto"`: why the server runs unconfined (a line for `list`), or undefined when it is
 * confined. Uses the same probe as the start, so it costs nothing more once a server started.
 */
export async function unconfinedNote(
  machine: Machine,
  spec: Pick<SpawnSpec, 'env' | 'cwd'>,
  policy: SandboxPolicy | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (policy?.mode !== 'auto') return undefined;
  const path = spec.env['PATH'] ?? (await machine.env(signal))['PATH'] ?? DEFAULT_PATH;
  const self = await machine.userId(signal);
  const bwrap = await locateBwrap(machine, path, signal);
  // An untrusted bwrap is never run, not even to probe: the start refuses it (bwrap-untrusted).
  const unusable = bwrap === undefined ? BWRAP_MISSING : await probeIfTrusted(machine, spec.cwd, bwrap, self, policy, signal);
  if (!unusable) return undefined;
  return `not confined: ${unusable.detail} on ${machine.identity} (sandbox mode "auto", cause ${unusable.reason}). ${FIXES[unusable.reason]}, or set "mode": "on" to refuse to run it unconfined`;
}

async function probeIfTrusted(
  machine: Machine,
  cwd: string,
  bwrap: string,
  self: number,
  policy: SandboxPolicy,
  signal: AbortSignal | undefined,
): Promise<Unusable | undefined> {
  const realHome = await machine.homeDir(signal);
  const kind = self === 0 ? 'root' : 'user';
  const input: MountInput = { machine, server: '', policy, cwd, realHome, self, alsoCheck: [bwrap], signal };
  const cache = createInfoCache();
  const trusted = await trustBwrap(machine, '', bwrap, await trustContext(input, cache), cache, signal).then(
    () => true,
    () => false,
  );
  return trusted ? unusableReason(await probeSandbox(machine, bwrap, kind, signal), policy, kind) : undefined;
}

type Unusable = { readonly reason: SandboxUnavailableReason; readonly detail: string };
const BWRAP_MISSING: Unusable = { reason: 'bwrap-missing', detail: "bubblewrap (bwrap) is not on the server's PATH" };

function unusableReason(facts: SandboxFacts, policy: SandboxPolicy, kind: SandboxIdentity['kind']): Unusable | undefined {
  if (kind === 'root' && facts.setpriv === undefined) {
    return {
      reason: 'setpriv-missing',
      detail: `setpriv (util-linux), which drops a server to uid ${CONFINED_ID} when berry-mcp is root, is not in /usr/sbin, /usr/bin, /sbin or /bin`,
    };
  }
  const refused = facts.refused ?? (policy.network ? undefined : facts.netRefused);
  if (refused === undefined) return undefined;
  return {
    reason: 'namespace-refused',
    detail: `the kernel refused bubblewrap's namespaces${policy.network ? '' : ' (network included)'}: ${refused.slice(0, 300)}`,
  };
}

const FIXES: Readonly<Record<SandboxUnavailableReason, string>> = {
  'bwrap-missing': 'Install bubblewrap there (Debian/Ubuntu: apt-get install bubblewrap)',
  'namespace-refused':
    'Allow the namespaces there (an ordinary user needs unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0)',
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
