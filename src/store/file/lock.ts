/**
 * A cross-process lock on the target machine: a file created exclusively (O_EXCL). It guards a
 * refresh, so two processes never spend one refresh token. A lock older than `staleMs` was left
 * by a process that died mid-refresh and is taken over.
 */
import { nodeCrypto } from '../../common/lazy-node.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { BerryError } from '../../common/errors.js';
import type { Machine } from '../../remote/machine/index.js';
import { TOKEN_DIR_MODE, TOKEN_FILE_MODE } from './store-safety.js';

export interface LockOptions {
  /** A lock file older than this is abandoned. @default 30000 */
  readonly staleMs?: number;
  /** Give up waiting for another holder after this long. @default 20000 */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
}

const POLL_MS = 50;

export async function withFileLock<T>(machine: Machine, path: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + (options.waitMs ?? 20_000);
  const owner = nodeCrypto().randomBytes(8).toString('hex');
  await machine.mkdir(path.slice(0, path.lastIndexOf('/')), TOKEN_DIR_MODE, options.signal);
  // A file without a readable stamp may be one being written right now: it is stale only once it
  // has looked like that for staleMs.
  let unreadableSince: number | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      await machine.writeFile(path, JSON.stringify({ owner, at: Date.now() }), { mode: TOKEN_FILE_MODE, exclusive: true }, options.signal);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(machine, path, options.signal);
    if (holder === undefined) unreadableSince ??= Date.now();
    else unreadableSince = undefined;
    if (Date.now() - (holder?.at ?? unreadableSince ?? Date.now()) > staleMs) {
      await machine.unlink(path, options.signal);
      unreadableSince = undefined;
      continue;
    }
    if (Date.now() > deadline) {
      throw new BerryError(
        'MCP_AUTH_REQUIRED',
        `Another process has held the sign-in lock ${path} for too long; retry, or remove the file if no berry-mcp process is running.`,
      );
    }
    await sleep(POLL_MS + Math.floor(Math.random() * POLL_MS), undefined, options.signal ? { signal: options.signal } : {});
  }
  try {
    return await fn();
  } finally {
    // Remove only our own lock: after a stale takeover the file may be someone else's.
    const holder = await readHolder(machine, path).catch(() => undefined);
    if (holder?.owner === owner) await machine.unlink(path).catch(() => {});
  }
}

async function readHolder(machine: Machine, path: string, signal?: AbortSignal): Promise<{ owner: string; at: number } | undefined> {
  const text = await machine.readFile(path, signal);
  if (text === undefined) return { owner: '', at: Date.now() };
  try {
    const parsed = JSON.parse(text) as { owner?: unknown; at?: unknown };
    if (typeof parsed.owner === 'string' && typeof parsed.at === 'number') return { owner: parsed.owner, at: parsed.at };
  } catch {
    // Half-written or damaged: the writer died between create and write.
  }
  return undefined;
}
