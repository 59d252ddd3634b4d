import { BerryError } from '../errors.js';

const FLAG = '--no-node-snapshot';

/**
 * isolated-vm needs Node started with --no-node-snapshot (its README: crashes were reported
 * without it). Throws a BerryError SCRIPT_SETUP_FAILED that says what to add when it is missing.
 */
export function checkNodeFlags(): void {
  // V8 flags are process-wide: this one would hand sandboxed code the %-natives of the engine.
  if (hasFlag(process.execArgv, process.env['NODE_OPTIONS'], '--allow-natives-syntax')) {
    throw new BerryError(
      'SCRIPT_SETUP_FAILED',
      'Refusing to run scripts in a Node started with --allow-natives-syntax: sandboxed code would get V8 intrinsics. Remove the flag.',
    );
  }
  if (hasNoNodeSnapshot(process.execArgv, process.env['NODE_OPTIONS'])) return;
  throw new BerryError(
    'SCRIPT_SETUP_FAILED',
    `Running scripts needs Node started with ${FLAG} (required by isolated-vm). ` +
      `Start Node as \`node ${FLAG} your-app.js\`, or set NODE_OPTIONS=${FLAG} in the environment ` +
      `(for mocha: "node-option": ["no-node-snapshot"] in .mocharc.json).`,
  );
}

/** Exported for tests: true when the flag is among the arguments or in NODE_OPTIONS. */
export function hasNoNodeSnapshot(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return hasFlag(execArgv, nodeOptions, FLAG);
}

function hasFlag(execArgv: readonly string[], nodeOptions: string | undefined, flag: string): boolean {
  if (execArgv.includes(flag)) return true;
  return nodeOptions !== undefined && nodeOptions.split(/\s+/).includes(flag);
}
