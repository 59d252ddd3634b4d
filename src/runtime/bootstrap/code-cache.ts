/**
 * The bootstrap compiled from V8's code cache. A cache made right after compiling holds only the
 * script's top level: V8 compiles each inner function (the guards, tools, outputs) when it is first
 * called, so every new isolate compiled them again (≈ 0.1 ms of a fresh run's 0.27 ms setup,
 * measured). From a process's second compile on, the cache is remade once from a script whose setup
 * and finish have run, so it carries their bytecode too. That happens in an isolate of its own that
 * runs nothing but the bootstrap: no script's code is ever near the cache every later run uses.
 */
import type IsolatedVm from 'isolated-vm';
import type { Ivm } from '../load-ivm.js';
import { BOOTSTRAP_FILENAME, BOOTSTRAP_SOURCE, type BootstrapConfig } from './bootstrap.js';
import { FINISH_GLOBAL } from './finish-source.js';

/** isolated-vm sets these on a script compiled with produceCachedData / cachedData. */
type CompiledWithCache = IsolatedVm.Script & IsolatedVm.CachedDataResult & { readonly cachedDataRejected?: boolean };

/** What the bootstrap's setup returns: answers a host call by id. */
export type Deliver = (id: number, envelope: string | IsolatedVm.ExternalCopy<string>) => void;

/** The host's side of a sandbox: the host call, the output and the state Callbacks (see bootstrap.ts). */
export interface SetupCallbacks {
  readonly hostCall: IsolatedVm.Callback;
  readonly emit: IsolatedVm.Callback;
  readonly stateCall: IsolatedVm.Callback;
}

/** The bootstrap's setup function (see bootstrap.ts). */
export type Setup = (...args: unknown[]) => Deliver;

let cache: IsolatedVm.ExternalCopy<ArrayBuffer> | undefined;
/** 'remade': the cache holds the inner functions; 'pending': a remake is on its way. */
let state: 'first' | 'pending' | 'remade' = 'first';

/** Where the process's cache stands (for tests): 'first' (top level only), 'pending' (remade next turn), 'remade'. */
export function bootstrapCacheState(): 'first' | 'pending' | 'remade' {
  return state;
}

/** The bootstrap, compiled for `isolate` (from the process's code cache when it has one). */
export function compileBootstrap(ivm: Ivm, isolate: IsolatedVm.Isolate, config: BootstrapConfig): IsolatedVm.Script {
  const cachedData = cache;
  const script: CompiledWithCache = isolate.compileScriptSync(
    BOOTSTRAP_SOURCE,
    cachedData === undefined ? { filename: BOOTSTRAP_FILENAME, produceCachedData: true } : { filename: BOOTSTRAP_FILENAME, cachedData },
  );
  if (cachedData === undefined) {
    cache = script.cachedData;
  } else if (script.cachedDataRejected === true) {
    // V8's flags changed under the process (v8.setFlagsFromString): start over from this compile.
    cache = undefined;
    state = 'first';
  } else if (state === 'first') {
    // Not on this run's path: a one-shot process, which compiles once, never pays for it.
    state = 'pending';
    setImmediate(remake, ivm, config);
  }
  return script;
}

/**
 * Installs the bootstrap in `context`: runs its setup with the host's callbacks and the run's
 * config, and returns the deliver function it hands back. Runs only our code, synchronously.
 */
export function runSetup(
  script: IsolatedVm.Script,
  context: IsolatedVm.Context,
  callbacks: SetupCallbacks,
  config: BootstrapConfig,
): IsolatedVm.Reference<Deliver> {
  const setup = script.runSync(context, { reference: true }) as IsolatedVm.Reference<Setup>;
  try {
    const { hostCall, emit, stateCall } = callbacks;
    return setup.applySync(undefined, [hostCall, emit, JSON.stringify(config), stateCall], { result: { reference: true } }) as IsolatedVm.Reference<Deliver>;
  } finally {
    setup.release();
  }
}

/** Remakes the cache after the bootstrap's setup and a finished trivial script ran in a private isolate. */
function remake(ivm: Ivm, config: BootstrapConfig): void {
  let isolate: IsolatedVm.Isolate | undefined;
  try {
    isolate = new ivm.Isolate({ memoryLimit: 32 });
    const context = isolate.createContextSync();
    const inert = new ivm.Callback(() => undefined);
    runSetup(
      isolate.compileScriptSync(BOOTSTRAP_SOURCE, { filename: BOOTSTRAP_FILENAME }),
      context,
      { hostCall: inert, emit: inert, stateCall: inert },
      config,
    ).release();
    isolate.compileScriptSync(`${FINISH_GLOBAL}(async () => 1)`).runSync(context, { timeout: 1000 });
    // The same source and origin: V8 hands back the script that just ran, inner functions compiled.
    const again: CompiledWithCache = isolate.compileScriptSync(BOOTSTRAP_SOURCE, { filename: BOOTSTRAP_FILENAME, produceCachedData: true });
    if (state === 'pending' && again.cachedData !== undefined) {
      cache = again.cachedData;
      state = 'remade';
    }
  } catch {
    // The first cache stays: runs are as fast as before, no slower.
    if (state === 'pending') state = 'remade';
  } finally {
    isolate?.dispose();
  }
}
