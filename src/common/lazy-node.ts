/**
 * Modules loaded on first use, by `require` (CommonJS, or a Node built-in), then kept. Node started
 * with --no-node-snapshot (`run` and `serve`) compiles each built-in module it loads: crypto with
 * what it loads is ≈ 20 internal modules (+14 ms of a one-shot `run`), child_process and net ≈ 10
 * (+7 ms), fs/promises ≈ 8 (+3 ms), and a run that starts no server, takes no lock and writes no
 * file uses none of them (measured).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A function that loads module `id` on its first call and returns the same module on every call. */
export function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(id) as T;
    return loaded;
  };
}

export const nodeCrypto = onFirstUse<typeof import('node:crypto')>('node:crypto');
export const nodeChildProcess = onFirstUse<typeof import('node:child_process')>('node:child_process');
export const nodeNet = onFirstUse<typeof import('node:net')>('node:net');
export const nodeFsPromises = onFirstUse<typeof import('node:fs/promises')>('node:fs/promises');
