/**
 * Turns the spawn of a stdio server into the spawn of the same server under bubblewrap on its
 * target machine, or refuses: a server that must be confined and cannot be never starts
 * unconfined (`MCP_SANDBOX_UNAVAILABLE`). Only `mode: "auto"` runs it as is when bwrap is absent.
 */
import { SandboxUnavailableError, type SandboxUnavailableReason } from '../../common/errors.js';
import type { Machine, SpawnSpec } from '../machine.js';
import { bwrapArgs } from './sandbox-argv.js';
import type { SandboxPolicy } from './sandbox-policy.js';
import { ensureHome, probeSandbox, type SandboxFacts } from './sandbox-probe.js';

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
  const facts = await probeSandbox(machine, path, signal);
  const unusable = unusableReason(facts, policy);
  if (unusable) {
    if (policy.mode === 'auto') return spec;
    throw unavailable(machine, server, unusable.reason, unusable.detail);
  }
  const sources = [...(policy.workspace === 'none' ? [] : [spec.cwd]), ...policy.binds.map((bind) => bind.source)];
  const found = await Promise.all(sources.map((source) => machine.fileInfo(source, signal, { followLinks: true })));
  const missing = sources.find((_, index) => found[index] === undefined);
  if (missing !== undefined) {
    const what = missing === spec.cwd && policy.workspace !== 'none' ? 'the working directory (mounted at /workspace)' : 'a bind source (roBinds/rwBinds)';
    throw new SandboxUnavailableError(
      `Server "${server}" was not started: ${what} ${missing} does not exist on ${machine.identity} (sandbox cause: bind-missing). ${FIXES['bind-missing']}.`,
      { server, reason: 'bind-missing', path: missing },
    );
  }
  await ensureHome(machine, policy.home, signal);
  const realHome = await machine.homeDir(signal);
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name of [...BASELINE, ...policy.envPass]) {
    const value = machineEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, { PATH: path, HOME: realHome, TMPDIR: '/tmp' }, spec.env);
  return {
    command: facts.bwrap!,
    args: bwrapArgs({ facts, policy, realHome, cwd: spec.cwd, command: spec.command, args: spec.args }),
    env,
    cwd: '/',
    clearEnv: true,
  };
}

/**
 * For `mode: "auto"`: why the server runs unconfined (a line for `list`), or undefined when it is
 * confined. Uses the same probe as the start, so it costs nothing more once a server started.
 */
export async function unconfinedNote(machine: Machine, spec: Pick<SpawnSpec, 'env'>, policy: SandboxPolicy | undefined, signal?: AbortSignal): Promise<string | undefined> {
  if (policy?.mode !== 'auto') return undefined;
  const path = spec.env['PATH'] ?? (await machine.env(signal))['PATH'] ?? DEFAULT_PATH;
  const unusable = unusableReason(await probeSandbox(machine, path, signal), policy);
  if (!unusable) return undefined;
  return `not confined: ${unusable.detail} on ${machine.identity} (sandbox mode "auto", cause ${unusable.reason}). ${FIXES[unusable.reason]}, or set "mode": "on" to refuse to run it unconfined`;
}

function unusableReason(facts: SandboxFacts, policy: SandboxPolicy): { reason: SandboxUnavailableReason; detail: string } | undefined {
  if (facts.bwrap === undefined) return { reason: 'bwrap-missing', detail: "bubblewrap (bwrap) is not on the server's PATH" };
  const refused = facts.refused ?? (policy.network ? undefined : facts.netRefused);
  if (refused === undefined) return undefined;
  return { reason: 'namespace-refused', detail: `the kernel refused bubblewrap's namespaces${policy.network ? '' : ' (network included)'}: ${refused.slice(0, 300)}` };
}

const FIXES: Readonly<Record<SandboxUnavailableReason, string>> = {
  'bwrap-missing': 'Install bubblewrap there (Debian/Ubuntu: apt-get install bubblewrap)',
  'namespace-refused': 'Allow unprivileged user namespaces there (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0)',
  'bind-missing': 'Create the path, or fix it in the entry\'s "sandbox" block',
};

function unavailable(machine: Machine, server: string, reason: SandboxUnavailableReason, detail: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `Server "${server}" must run confined and was not started: ${detail} on ${machine.identity} (sandbox cause: ${reason}). ${FIXES[reason]}, or set "sandbox": {"mode": "off"} to accept running it unconfined.`,
    { server, reason },
  );
}
