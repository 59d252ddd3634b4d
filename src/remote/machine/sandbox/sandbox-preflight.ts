/**
 * As root, before a start: the private home belongs to uid 65534, and uid 65534 can use the
 * mounts it needs (write the rw ones, enter the workspace). A home made by root (new, or by an
 * earlier version) is handed over with everything in it, its top last: until then the server's
 * uid cannot enter it, so nothing in it can move under the walk. Group and ACL rights count: the
 * check runs as that uid (setpriv) on the pinned descriptors; the mode bits settle most cases
 * without running anything.
 */
import { SandboxUnavailableError } from '../../../common/errors.js';
import { MAX_PINNED_FD, type Machine, type PinnedPath } from '../machine.js';
import { DROP_ARGS } from './sandbox-identity.js';
import type { MountPlan, PlannedMount } from './sandbox-mounts.js';
import { CONFINED_ID } from './sandbox-policy.js';

const TIMEOUT_MS = 60_000;
const MAX_OUTPUT = 16 * 1024;
const ID = String(CONFINED_ID);

// $0 is setpriv; each argument is `<job>:<fd>`. Nothing else comes from the config.
const SCRIPT = [
  'for j; do case $j in own:*) n=${j#own:}; ' +
    `find /proc/self/fd/$n/ -depth -exec chown -h ${ID}:${ID} {} + 2>/dev/null || printf 'unowned\\t%s\\n' "$n";; esac; done`,
  `exec "$0" ${DROP_ARGS.join(' ')} /bin/sh -c '${checksScript()}' sh "$@"`,
].join('\n');

function checksScript(): string {
  const denied = `printf "denied\\t%s\\n" "$n"`;
  return (
    'for j; do n=${j#*:}; f=/proc/self/fd/$n; case $j in ' +
    `w:*) { [ -w $f ] && [ -x $f ]; } || ${denied};; f:*) [ -w $f ] || ${denied};; x:*) [ -x $f ] || ${denied};; ` +
    'esac; done'
  );
}

type Job = { readonly kind: 'own' | 'w' | 'f' | 'x'; readonly mount: PlannedMount };

export async function preflightAsRoot(machine: Machine, server: string, plan: MountPlan, setpriv: string, signal?: AbortSignal): Promise<void> {
  const jobs = plan.mounts.flatMap((mount) => jobsFor(mount));
  const slots = MAX_PINNED_FD - 2;
  for (let start = 0; start < jobs.length; start += slots) {
    const batch = jobs.slice(start, start + slots);
    const pins: PinnedPath[] = batch.map((job, index) => ({ fd: 3 + index, path: job.mount.real }));
    const output = await run(
      machine,
      server,
      setpriv,
      batch.map((job, index) => `${job.kind}:${3 + index}`),
      pins,
      signal,
    );
    for (const line of output.split('\n')) {
      const [tag, fd] = line.split('\t');
      const job = batch[Number(fd) - 3];
      if (job && (tag === 'denied' || tag === 'unowned')) throw permissionError(machine, server, job, tag);
    }
  }
}

function jobsFor(mount: PlannedMount): Job[] {
  const { info } = mount;
  const directory = info.type === 'directory';
  const owner = info.uid === CONFINED_ID;
  if (mount.role === 'home') return owner ? [] : [{ kind: 'own', mount }];
  const jobs: Job[] = [];
  const can = (bit: number): boolean => (info.mode & bit) !== 0 || (owner && (info.mode & (bit << 6)) !== 0);
  if (mount.writable && !(can(0o002) && (!directory || can(0o001)))) jobs.push({ kind: directory ? 'w' : 'f', mount });
  else if (mount.role === 'workspace' && !can(0o001)) jobs.push({ kind: 'x', mount });
  return jobs;
}

async function run(
  machine: Machine,
  server: string,
  setpriv: string,
  jobs: readonly string[],
  pins: readonly PinnedPath[],
  signal: AbortSignal | undefined,
): Promise<string> {
  signal?.throwIfAborted();
  const child = await machine.spawn({ command: '/bin/sh', args: ['-c', SCRIPT, setpriv, ...jobs], env: {}, cwd: '/', pins });
  child.stdin.on('error', () => {});
  child.stdin.end();
  child.stderr.resume();
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (output.length < MAX_OUTPUT) output += chunk.toString('utf8');
  });
  const kill = (): void => child.killGroup('SIGKILL');
  const timer = setTimeout(kill, TIMEOUT_MS);
  signal?.addEventListener('abort', kill, { once: true });
  const exit = await child.exited.finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', kill);
  });
  signal?.throwIfAborted();
  if (exit.code !== 0) {
    const why = exit.error?.message ?? (exit.code === undefined ? `killed by ${exit.signal ?? 'a signal'}` : `exit code ${exit.code}`);
    throw new SandboxUnavailableError(
      `Server "${server}" was not started: checking its mounts for uid ${ID} on ${machine.identity} failed (${why}) (sandbox cause: bind-permission).`,
      { server, reason: 'bind-permission' },
    );
  }
  return output;
}

function permissionError(machine: Machine, server: string, job: Job, tag: string): SandboxUnavailableError {
  const { mount } = job;
  const need = job.kind === 'x' ? 'enter (search)' : 'write';
  const problem =
    tag === 'unowned'
      ? `could not be handed over to uid ${ID} (chown failed)`
      : `is not something uid ${ID} can ${need}, and confined servers run as uid ${ID} when berry-mcp is root`;
  const fix =
    job.kind === 'x'
      ? `Let that uid in (chmod o+x ${mount.real}), or set "workspace": "none"`
      : `Give that uid the right (chown -R ${ID}:${ID} ${mount.real}, or setfacl -R -m u:${ID}:rwX ${mount.real}), or mount it read-only`;
  return new SandboxUnavailableError(
    `Server "${server}" was not started: ${mount.what} ${mount.real} ${problem} on ${machine.identity} (sandbox cause: bind-permission). ${tag === 'unowned' ? `Run chown -R ${ID}:${ID} ${mount.real} as root` : fix}.`,
    { server, reason: 'bind-permission', path: mount.real },
  );
}
