import { cachedDataVersionTag } from 'node:v8';
import { BerryError } from '../common/errors.js';

const FLAG = '--no-node-snapshot';

/**
 * V8 flags that hand sandboxed code something of the engine: %-natives, or extra globals such as
 * `statistics`, `triggerFailure` or a `gc` under another name (--expose-gc itself is allowed: the
 * sandbox empties every global it did not create, and that one cannot crash the host).
 */
const REFUSED_FLAGS: readonly string[] = ['allow-natives-syntax', 'harmony-struct', 'js-shared-memory', 'shared-string-table'];
const ALLOWED_EXPOSE_FLAGS: ReadonlySet<string> = new Set(['expose-gc']);

/**
 * isolated-vm needs Node started with --no-node-snapshot (its README: crashes were reported
 * without it). Throws a BerryError SCRIPT_SETUP_FAILED that says what to add when it is missing,
 * or which flag to remove when one would open the sandbox.
 */
export function checkNodeFlags(): void {
  const nodeOptions = process.env['NODE_OPTIONS'];
  // V8 flags are process-wide: each of these would reach sandboxed code.
  const refused = refusedFlags(process.execArgv, nodeOptions);
  if (refused.length > 0) {
    throw new BerryError(
      'SCRIPT_SETUP_FAILED',
      `Refusing to run scripts in a Node started with ${refused.join(', ')}: sandboxed code would get V8 intrinsics ` +
        'or extra globals from it. Remove the flag (from the command line or NODE_OPTIONS).',
    );
  }
  if (hasNoNodeSnapshot(process.execArgv, nodeOptions)) return;
  throw new BerryError(
    'SCRIPT_SETUP_FAILED',
    `Running scripts needs Node started with ${FLAG} (required by isolated-vm). ` +
      `Start Node as \`node ${FLAG} your-app.js\`, or set NODE_OPTIONS=${FLAG} in the environment ` +
      `(for mocha: "node-option": ["no-node-snapshot"] in .mocharc.json).`,
  );
}

/** V8's flag hash is part of this tag: it changes whenever a flag does, v8.setFlagsFromString included. */
let probedTag: number | undefined;
let probedResult = false;

/**
 * True when V8 currently parses %-natives syntax: also catches `v8.setFlagsFromString()` after
 * start, which no argument list shows. Asked before every run; parses a probe (never run) only
 * when V8's flags changed since the last one, which a run that starts cold would otherwise pay
 * (≈ 0.3 ms on this machine after 15 ms idle, 6 µs back to back).
 */
export function nativesSyntaxEnabled(): boolean {
  const tag = cachedDataVersionTag();
  if (tag !== probedTag) {
    probedResult = parsesNatives();
    probedTag = tag;
  }
  return probedResult;
}

let probes = 0;

function parsesNatives(): boolean {
  // The SyntaxError it expects costs a stack trace unless none is taken.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // A source of its own each time: Node 26's V8 keeps a compiled probe in its compilation cache
    // after the flag goes off again, and would answer from there.
    new Function(`return %HasFastProperties({}) // ${++probes}`);
    return true;
  } catch {
    return false;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Exported for tests: true when the flag is among the arguments or in NODE_OPTIONS. */
export function hasNoNodeSnapshot(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return flagNames(execArgv, nodeOptions).includes(normalizeFlag(FLAG));
}

/** Exported for tests: the refused flags present, as given. */
export function refusedFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const found: string[] = [];
  for (const arg of allArgs(execArgv, nodeOptions)) {
    const name = normalizeFlag(arg);
    const exposes = name.startsWith('expose-') && !ALLOWED_EXPOSE_FLAGS.has(name);
    if (exposes || REFUSED_FLAGS.includes(name)) found.push(arg);
  }
  return found;
}

/** V8 accepts `_` for `-`, one or two leading dashes, and a value after `=`: compare names only. */
function normalizeFlag(arg: string): string {
  const name = arg.replace(/^--?/, '').split('=', 1)[0] ?? '';
  return name.replaceAll('_', '-').toLowerCase();
}

function allArgs(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const fromEnv = nodeOptions === undefined ? [] : nodeOptions.split(/\s+/);
  return [...execArgv, ...fromEnv].filter((arg) => arg.startsWith('-'));
}

function flagNames(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return allArgs(execArgv, nodeOptions).map(normalizeFlag);
}
