import type IsolatedVm from 'isolated-vm';
import type { BootstrapConfig } from './bootstrap/bootstrap.js';
import { compileBootstrap, runSetup, type Deliver } from './bootstrap/code-cache.js';
import { FINISH_GLOBAL } from './bootstrap/finish-source.js';
import type { HostBridge } from './bridge.js';
import { toCrossing } from './crossing.js';
import type { Ivm } from './load-ivm.js';
import { BUDGET_SPENT, type OutputCollector } from './outputs.js';
import type { StateBridge } from './state/state-bridge.js';

/**
 * Compiles the user's code as the body of an async function handed to the bootstrap's finish
 * global. lineOffset -1 cancels the wrapper's first line, so positions match the user's file.
 * Throws isolated-vm's SyntaxError for bad code. `isBody`: isFunctionBody(code), when known.
 */
export function compileUserScript(isolate: IsolatedVm.Isolate, code: string, filename: string, isBody?: boolean): IsolatedVm.Script {
  const script = isolate.compileScriptSync(`${FINISH_GLOBAL}(async () => {\n${code}\n})`, { filename, lineOffset: -1 });
  if (!(isBody ?? isFunctionBody(code))) {
    script.release();
    throw new SyntaxError('The script closes its own function early (an unbalanced "}"): it must be the body of an async function.');
  }
  return script;
}

const AsyncFunction = (async () => {}).constructor as new (body: string) => unknown;

/**
 * True when `code` parses on its own as an async function body. The wrapper alone would accept
 * `}); evil(); (async () => {`, which runs outside the function. Parsed only, never run.
 */
export function isFunctionBody(code: string): boolean {
  try {
    new AsyncFunction(code);
    return true;
  } catch {
    return false;
  }
}

/**
 * The run a context's host functions serve. A pooled context is made before its run: the run sets
 * both once, before any script code runs, and nothing else ever does.
 */
export interface SandboxTarget {
  bridge?: HostBridge;
  outputs?: OutputCollector;
  state?: StateBridge;
}

/**
 * A new context with the sandbox globals installed, serving whatever run `target` names when its
 * host functions are called. Runs only our code, synchronously: it is short and bounded.
 */
export function installSandbox(ivm: Ivm, isolate: IsolatedVm.Isolate, target: SandboxTarget, config: BootstrapConfig): IsolatedVm.Context {
  const context = isolate.createContextSync();
  const script = compileBootstrap(ivm, isolate, config);
  const emit = new ivm.Callback((kind: unknown, text: unknown, mimeType: unknown) => {
    try {
      return target.outputs === undefined ? BUDGET_SPENT : target.outputs.accept(kind, text, mimeType);
    } catch {
      return BUDGET_SPENT;
    }
  });
  let deliver: IsolatedVm.Reference<Deliver> | undefined;
  // Ignored both ways: one crossing for the call, one for its answer (see tools-source.ts).
  const hostCall = new ivm.Callback(
    (id: unknown, name: unknown, json: unknown) => {
      void target.bridge?.dispatch(name, json).then((envelope) => {
        try {
          deliver?.applyIgnored(undefined, [id as number, toCrossing(ivm, envelope)]);
        } catch {
          // The run ended and its isolate is gone: nobody waits for this answer.
        }
      });
    },
    { ignored: true },
  );
  // Synchronous: store and load return in the script's own turn (see state/state-bridge.ts).
  const stateCall = new ivm.Callback((op: unknown, key: unknown, json: unknown) =>
    target.state === undefined ? '!{"name":"Error","message":"this run has no state"}' : target.state.handle(op, key, json),
  );
  deliver = runSetup(script, context, { hostCall, emit, stateCall }, config);
  script.release();
  return context;
}
