/**
 * Where bwrap is, decided before anything runs it: it runs outside the sandbox (as root, for
 * root), so a bwrap a confined server could have put on the server's PATH (a bin directory in
 * an rw workspace) would run unconfined at the next start, the probe included.
 */
import * as posix from 'node:path/posix';
import { SandboxUnavailableError } from '../../../common/errors.js';
import type { Machine } from '../machine.js';
import { resolveTrusted, type InfoCache, type TrustContext } from './trusted-path.js';

/** The first executable `bwrap` on `path`, as `command -v` finds it from `/`; undefined when none. */
export async function locateBwrap(machine: Machine, path: string, signal?: AbortSignal): Promise<string | undefined> {
  const candidates = [...new Set(path.split(':').map((dir) => posix.join(posix.resolve('/', dir), 'bwrap')))];
  const found = await Promise.all(candidates.map((candidate) => machine.fileInfo(candidate, signal, { followLinks: true }).catch(() => undefined)));
  return candidates.find((_, index) => found[index]?.type === 'file' && (found[index]!.mode & 0o111) !== 0);
}

/** Refuses a bwrap that a confined server or another user can replace: its path, or the file itself. */
export async function trustBwrap(
  machine: Machine,
  server: string,
  bwrap: string,
  context: TrustContext,
  cache: InfoCache,
  signal?: AbortSignal,
): Promise<void> {
  const found = await resolveTrusted(machine, bwrap, context, cache, signal);
  const owner = found.kind === 'found' ? found.info.uid : -1;
  const safe = found.kind === 'found' && !found.exposed && (owner === 0 || owner === context.self) && (found.info.mode & 0o022) === 0;
  if (safe) return;
  throw new SandboxUnavailableError(
    `Server "${server}" must run confined and was not started: bubblewrap was found at ${bwrap} on ${machine.identity}, where a confined server or another user can replace it (sandbox cause: bwrap-untrusted). ` +
      "Install bwrap in a system directory and leave that directory out of the server's PATH, or make it and its directories owned by root and not writable by others.",
    { server, reason: 'bwrap-untrusted', path: bwrap },
  );
}
