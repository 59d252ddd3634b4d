/**
 * What bubblewrap needs to know about a target machine, found once per machine lifetime (and
 * bwrap; a machine where it is refused is asked again after 30 s): whether the kernel lets it
 * create the namespaces (as the server's identity), setpriv for root, and the top level of the
 * file system (mounted one entry at a time, so that /workspace can be created in the root).
 */
import { BerryError } from '../../../common/errors.js';
import type { Machine } from '../machine.js';
import { abortable } from '../../../common/abort.js';
import { DROP_ARGS, identityArgs, type SandboxIdentity } from './sandbox-identity.js';

export interface RootEntry {
  /** Absolute path, e.g. `/usr`. */
  readonly path: string;
  readonly kind: 'dir' | 'link';
  /** The link's target as stored (`usr/bin`), for `kind: 'link'`. */
  readonly target?: string;
}

export interface SandboxFacts {
  /** The bwrap the probe ran (found and trusted before: sandbox-bwrap.ts). */
  readonly bwrap: string | undefined;
  /** Absolute path of setpriv in the system directories; asked only when berry-mcp is root there. */
  readonly setpriv: string | undefined;
  /** bwrap's own words when it could not create the PID/IPC/UTS namespaces; undefined when it could. */
  readonly refused: string | undefined;
  /** The same with a network namespace too (`network: false`). */
  readonly netRefused: string | undefined;
  readonly roots: readonly RootEntry[];
  /** Which of the optional directories the layout uses exist (`/var/tmp`, `/run/systemd/resolve`). */
  readonly present: ReadonlySet<string>;
}

/** The namespaces every confined server gets (the probe tries exactly these). */
export const NAMESPACE_ARGS = ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'] as const;
const PROBE_TIMEOUT_MS = 10_000;
/** A machine without a usable bwrap is asked again after this long (someone may install it). */
const NEGATIVE_TTL_MS = 30_000;
const MAX_PROBE_OUTPUT = 64 * 1024;
const TRY = `--ro-bind / / --proc /proc --dev /dev ${NAMESPACE_ARGS.join(' ')} --die-with-parent`;
/** setpriv is looked up in the system directories only: those are what a sandbox mounts, read-only. */
const SYSTEM_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

// No user data in the script: it travels as an argument of `sh -c`. $1 is bwrap, found on the
// server's PATH and trusted before anything runs it (sandbox-bwrap.ts); $2 is "root" or "user"
// (sandbox-identity.ts): as root the probe runs exactly the drop to uid 65534 a server gets.
// The probe's own tools come from the machine's PATH.
const PROBE_SCRIPT = [
  'b=$1',
  `printf 'bwrap\\t%s\\n' "$b"`,
  's=',
  `if [ "$2" = root ]; then s=$(PATH=${SYSTEM_PATH}; command -v setpriv 2>/dev/null) || s=; printf 'setpriv\\t%s\\n' "$s"; fi`,
  'for f in /* /.[!.]*; do',
  `  if [ -L "$f" ]; then printf 'link\\t%s\\t%s\\n' "$f" "$(readlink "$f")"; elif [ -d "$f" ]; then printf 'dir\\t%s\\n' "$f"; fi`,
  'done',
  `for d in /var/tmp /run/systemd/resolve; do [ -d "$d" ] && printf 'has\\t%s\\n' "$d"; done`,
  `try() { if [ "$mode" = root ]; then "$b" ${TRY} ${identityArgs('root').join(' ')} "$@" -- "$s" ${DROP_ARGS.join(' ')} true; else "$b" ${TRY} ${identityArgs('user').join(' ')} "$@" -- true; fi; }`,
  'mode=$2',
  'if [ -n "$b" ] && { [ "$mode" != root ] || [ -n "$s" ]; }; then',
  `  e=$(try 2>&1 </dev/null); printf 'ns\\t%s\\t%s\\n' "$?" "$(printf %s "$e" | tr '\\n' ' ' | cut -c1-400)"`,
  `  e=$(try --unshare-net 2>&1 </dev/null); printf 'net\\t%s\\t%s\\n' "$?" "$(printf %s "$e" | tr '\\n' ' ' | cut -c1-400)"`,
  'fi',
].join('\n');

interface Cache {
  readonly lifetime: string;
  readonly facts: Map<string, Promise<SandboxFacts>>;
  /** Private homes already created in this lifetime. */
  readonly homes: Set<string>;
}

const caches = new WeakMap<Machine, Cache>();

/** The cache of the machine's current lifetime (a new SSH connection starts afresh). */
async function cacheOf(machine: Machine, signal: AbortSignal | undefined): Promise<Cache> {
  const lifetime = await machine.lifetime(signal);
  let cache = caches.get(machine);
  if (cache?.lifetime !== lifetime) {
    cache = { lifetime, facts: new Map(), homes: new Set() };
    caches.set(machine, cache);
  }
  return cache;
}

/**
 * The facts for `bwrap` (an absolute path, already trusted), for a server confined as `identity`
 * (root drops to uid 65534, a user gets a user namespace). Shared by concurrent starts.
 */
export async function probeSandbox(machine: Machine, bwrap: string, identity: SandboxIdentity['kind'], signal?: AbortSignal): Promise<SandboxFacts> {
  const cache = await cacheOf(machine, signal);
  const key = `${identity}\0${bwrap}`;
  let facts = cache.facts.get(key);
  if (!facts) {
    // Runs to the end under its own deadline: one caller's abort must not fail the others.
    const probing = runProbe(machine, bwrap, identity);
    facts = probing;
    cache.facts.set(key, probing);
    const forget = (): void => {
      if (cache.facts.get(key) === probing) cache.facts.delete(key);
    };
    probing.then((found) => {
      const missing = found.bwrap === undefined || (identity === 'root' && found.setpriv === undefined);
      if (missing || found.refused !== undefined || found.netRefused !== undefined) setTimeout(forget, NEGATIVE_TTL_MS).unref();
    }, forget);
  }
  return abortable(facts, signal);
}

/** Creates the private home once per lifetime (mode 0700: it holds the server's tokens). */
export async function ensureHome(machine: Machine, home: string, signal?: AbortSignal): Promise<void> {
  const cache = await cacheOf(machine, signal);
  if (cache.homes.has(home)) return;
  await machine.mkdir(home, 0o700, signal);
  cache.homes.add(home);
}

async function runProbe(machine: Machine, bwrap: string, identity: SandboxIdentity['kind']): Promise<SandboxFacts> {
  const child = await machine.spawn({ command: '/bin/sh', args: ['-c', PROBE_SCRIPT, 'sh', bwrap, identity], env: {}, cwd: '/' });
  child.stdin.on('error', () => {});
  child.stdin.end();
  child.stderr.resume();
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (output.length < MAX_PROBE_OUTPUT) output += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.killGroup('SIGKILL'), PROBE_TIMEOUT_MS);
  timer.unref();
  const exit = await child.exited.finally(() => clearTimeout(timer));
  if (exit.code !== 0) {
    const why = exit.error?.message ?? (exit.code === undefined ? `killed by ${exit.signal ?? 'a signal'}` : `exit code ${exit.code}`);
    throw new BerryError('MCP_CONNECT_FAILED', `Cannot check for bubblewrap on ${machine.identity}: the probe failed (${why}).`);
  }
  return parseProbe(output);
}

/** Reads the probe's tab-separated lines. */
export function parseProbe(output: string): SandboxFacts {
  let bwrap: string | undefined;
  let setpriv: string | undefined;
  let refused: string | undefined = 'bwrap was not run';
  let netRefused: string | undefined = 'bwrap was not run';
  const roots: RootEntry[] = [];
  const present = new Set<string>();
  for (const line of output.split('\n')) {
    const [tag, first = '', second = ''] = line.split('\t');
    if (tag === 'bwrap') bwrap = first.startsWith('/') ? first : undefined;
    else if (tag === 'setpriv') setpriv = first.startsWith('/') ? first : undefined;
    else if (tag === 'dir' && first.startsWith('/')) roots.push({ path: first, kind: 'dir' });
    else if (tag === 'link' && first.startsWith('/') && second !== '') roots.push({ path: first, kind: 'link', target: second });
    else if (tag === 'has') present.add(first);
    else if (tag === 'ns') refused = first === '0' ? undefined : second.trim() || `bwrap exited with code ${first}`;
    else if (tag === 'net') netRefused = first === '0' ? undefined : second.trim() || `bwrap exited with code ${first}`;
  }
  return { bwrap, setpriv, refused, netRefused, roots, present };
}
