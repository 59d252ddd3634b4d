/**
 * Sandboxes made ahead of need: an isolate with its context set up (the bootstrap run, `tools`
 * built), waiting for one run. Each is handed out once and disposed by that run; none is ever
 * reused. The pool is refilled after a run ends, one sandbox per turn of the event loop, and holds
 * at most `size` of them.
 */
import type IsolatedVm from 'isolated-vm';
import { BerryError } from '../common/errors.js';
import type { BootstrapConfig } from './bootstrap/bootstrap.js';
import type { Ivm } from './load-ivm.js';
import { countParkedIsolate } from './parked.js';
import { installSandbox, type SandboxTarget } from './sandbox.js';

/** Sandboxes a host keeps warm unless told otherwise. */
export const DEFAULT_WARM_ISOLATES = 2;
const MAX_WARM_ISOLATES = 64;

/** Where the run that uses an isolate hears of its catastrophic error: isolates are made before their run. */
export interface Catastrophe {
  onCatastrophe?: () => void;
}

/** An isolate for one run; `context` is set when it was made ahead (pooled), else the run installs its own. */
export interface Sandbox {
  readonly isolate: IsolatedVm.Isolate;
  readonly catastrophe: Catastrophe;
  readonly target: SandboxTarget;
  readonly context?: IsolatedVm.Context;
}

/** What a sandbox is made for: a run only ever gets one made for exactly its own. */
export interface SandboxSpec {
  readonly memoryLimitMb: number;
  readonly config: BootstrapConfig;
}

/** A new isolate whose catastrophic error reaches the run that sets `catastrophe.onCatastrophe`. */
export function createIsolate(ivm: Ivm, memoryLimitMb: number): Sandbox {
  const catastrophe: Catastrophe = {};
  try {
    // V8 cannot always unwind from running out of memory (one allocation larger than what is
    // left): without this handler the whole process aborts; with it isolated-vm parks the
    // isolate's thread for good, and the run ends as SCRIPT_MEMORY_LIMIT.
    const isolate = new ivm.Isolate({
      memoryLimit: memoryLimitMb,
      onCatastrophicError: () => {
        countParkedIsolate();
        catastrophe.onCatastrophe?.();
      },
    });
    return { isolate, catastrophe, target: {} };
  } catch (cause) {
    throw new BerryError('SCRIPT_SETUP_FAILED', `Could not create the script's isolate: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

function keyOf(spec: SandboxSpec): string {
  return `${spec.memoryLimitMb}\0${JSON.stringify(spec.config)}`;
}

export class IsolatePool {
  readonly #size: number;
  readonly #idle = new Map<string, Sandbox[]>();
  #count = 0;
  #hits = 0;
  #misses = 0;
  #closed = false;
  #scheduled: NodeJS.Immediate | undefined;
  /** What the last run asked for: what the pool keeps warm. */
  #wanted: { readonly key: string; readonly ivm: Ivm; readonly spec: SandboxSpec } | undefined;

  /** `size` sandboxes at most; 0 keeps none (every run makes its own). */
  constructor(size: number = DEFAULT_WARM_ISOLATES) {
    if (!Number.isInteger(size) || size < 0 || size > MAX_WARM_ISOLATES) {
      throw new TypeError(`warmIsolates must be an integer from 0 to ${MAX_WARM_ISOLATES}, got ${String(size)}`);
    }
    this.#size = size;
  }

  /** Sandboxes waiting now. */
  get idle(): number {
    return this.#count;
  }

  /** Runs that got a warm sandbox, and runs that asked and made their own. */
  get stats(): { readonly hits: number; readonly misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /** A sandbox made for exactly `spec`, now no longer the pool's; undefined when none is warm (the run makes its own). */
  take(ivm: Ivm, spec: SandboxSpec): Sandbox | undefined {
    if (this.#closed || this.#size === 0) return undefined;
    const key = keyOf(spec);
    this.#wanted = { key, ivm, spec };
    const list = this.#idle.get(key);
    const sandbox = list?.pop();
    if (sandbox === undefined) {
      this.#misses++;
      return undefined;
    }
    if (list!.length === 0) this.#idle.delete(key);
    this.#count--;
    this.#hits++;
    return sandbox;
  }

  /** After a run ends: makes sandboxes for what runs last asked for, off the run's path, until the pool is full. */
  refill(): void {
    if (this.#closed || this.#size === 0 || this.#scheduled !== undefined || this.#wanted === undefined) return;
    this.#scheduled = setImmediate(() => this.#fillOne());
    // A pool being refilled must not keep the process alive.
    this.#scheduled.unref();
  }

  #fillOne(): void {
    this.#scheduled = undefined;
    const wanted = this.#wanted;
    if (this.#closed || wanted === undefined || (this.#idle.get(wanted.key)?.length ?? 0) >= this.#size) return;
    if (this.#count >= this.#size) this.#evictOther(wanted.key);
    let sandbox: Sandbox | undefined;
    try {
      sandbox = createIsolate(wanted.ivm, wanted.spec.memoryLimitMb);
      const context = installSandbox(wanted.ivm, sandbox.isolate, sandbox.target, wanted.spec.config);
      sandbox = { ...sandbox, context };
    } catch {
      // Runs make their own sandbox, and say why when that fails too.
      if (sandbox !== undefined) disposeQuietly(sandbox.isolate);
      return;
    }
    const list = this.#idle.get(wanted.key);
    if (list === undefined) this.#idle.set(wanted.key, [sandbox]);
    else list.push(sandbox);
    this.#count++;
    this.refill();
  }

  /** Makes room for the wanted key: sandboxes made for other limits are disposed first. */
  #evictOther(wanted: string): void {
    for (const [key, list] of this.#idle) {
      if (key === wanted) continue;
      const sandbox = list.pop();
      if (list.length === 0) this.#idle.delete(key);
      if (sandbox !== undefined) {
        this.#count--;
        disposeQuietly(sandbox.isolate);
        return;
      }
    }
  }

  /** Disposes every waiting sandbox; later takes get none, and nothing is made again. */
  close(): void {
    this.#closed = true;
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    for (const list of this.#idle.values()) for (const sandbox of list) disposeQuietly(sandbox.isolate);
    this.#idle.clear();
    this.#count = 0;
  }
}

/** After a catastrophic error isolated-vm may have disposed the isolate itself. */
export function disposeQuietly(isolate: IsolatedVm.Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose();
  } catch {
    // Already disposed.
  }
}
