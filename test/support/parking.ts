// Whether V8 of this Node still gives up (and isolated-vm parks the isolate) on the catastrophe
// scripts the attacks use: Node 20 and 22 do on a Map grown past the limit; the V8 of Node 24 and
// 26 recovers from it ("Map maximum size exceeded") and from every other script tried, so there the
// tests of what follows a parked isolate have nothing to start from.
import { join } from 'node:path';
import { PROJECT_ROOT } from './paths.js';
import { runSelfKilling } from './processes.js';

/** Parks its isolate at 256 MB on Node 20 (10 runs of 10) and 22. */
export const PARK = 'const m = new Map(); for (let i = 0; i < 2 ** 26; i++) m.set(i, 1);';

let parks: boolean | undefined;

/**
 * True when PARK parked an isolate in one of two tries in a fresh process (probed once). Never on
 * Node 24 and later: there V8 recovers from PARK almost always, and the one probe in a while that
 * parks would start tests whose own runs then do not park (seen in CI: "5 runs answered without parking").
 */
export function parksHere(): boolean {
  if (Number(process.versions.node.split('.')[0]) >= 24) return false;
  parks ??= runSelfKilling(`
    const { runScript, parkedIsolates } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist/src/runtime/index.js'))});
    for (let i = 0; i < 2 && parkedIsolates() === 0; i++) await runScript(${JSON.stringify(PARK)}, { functions: {}, memoryLimitMb: 256 });
    console.log(JSON.stringify(parkedIsolates() > 0));
    process.kill(process.pid, 'SIGKILL');`) as boolean;
  return parks;
}
