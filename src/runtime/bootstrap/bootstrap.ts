/**
 * The source that wires the sandbox's globals. It evaluates to `setup(hostCall, emit, configJson,
 * stateCall)`: hostCall is the host call Callback, emit the output Callback, configJson a
 * BootstrapConfig, stateCall the synchronous Callback of store and load. setup
 * returns `deliver(id, envelope)`, through which the host answers each call (see tools-source.ts);
 * it installs tools, text, image, console, store and load, and a one-shot global FINISH_GLOBAL that the
 * wrapped script calls as `FINISH_GLOBAL(async () => {…})`: it deletes itself, runs the script's
 * function and answers with a tagged string (see BOOTSTRAP_SOURCE). Compiled once per isolate,
 * from V8's code cache (code-cache.ts): keep it small, it is most of a run's start-up after
 * isolate creation.
 *
 * The source is assembled from named fragments, in this order: globals (globals-source.ts), guards
 * (guards-source.ts), flattening guards (flatten-guards-source.ts), outputs (outputs-source.ts),
 * tools (tools-source.ts), state (state-source.ts), finish (finish-source.ts).
 *
 * Rules for this code: strict mode (so stack-trace callsites cannot hand out our functions or
 * `this`); builtins it needs are captured before the script runs, so a script that replaces them
 * only breaks itself; hostCall, emit, stateCall and deliver live only in this closure, never on a global.
 */

import { FINISH_SOURCE } from './finish-source.js';
import { FLATTEN_GUARDS_SOURCE } from './flatten-guards-source.js';
import { GLOBALS_SOURCE } from './globals-source.js';
import { GUARDS_SOURCE } from './guards-source.js';
import { OUTPUTS_SOURCE } from './outputs-source.js';
import { STATE_SOURCE } from './state-source.js';
import { TOOLS_SOURCE } from './tools-source.js';

export const BOOTSTRAP_FILENAME = 'berry-mcp:bootstrap';

export interface BootstrapConfig {
  /** The names exposed as tools.<name>. */
  readonly names: readonly string[];
  /** Bytes of output budget at start. */
  readonly remaining: number;
  /** Longest return value JSON (in UTF-16 units) sent back; the host checks bytes. */
  readonly resultLimit: number;
  /** Longest argument JSON (in UTF-16 units) one host call may send; the host checks bytes. */
  readonly argumentLimit: number;
  /** Code of the error a too-large argument gets. */
  readonly argumentCode: string;
  /** Most host calls in flight at once; later ones wait inside the sandbox. */
  readonly maxCalls: number;
  /** Most elements one Array.prototype.fill may write: what the memory limit could hold. */
  readonly fillLimit: number;
  /** The memory limit in bytes: no longer string can be flat in the heap (flatten-guards-source.ts). */
  readonly flatLimit: number;
}

/** The in-isolate source (plain JavaScript, run by V8 inside the sandbox): the captured builtins, then the fragments. */
export const BOOTSTRAP_SOURCE = String.raw`(function setup(hostCall, emit, configJson, stateCall) {
'use strict';
const config = JSON.parse(configJson);
const G = globalThis, stringify = JSON.stringify, parse = JSON.parse;
const defineProperty = Object.defineProperty, freeze = Object.freeze, construct = Reflect.construct;
const Err = Error, TypeErr = TypeError, RangeErr = RangeError, Str = String, capture = Error.captureStackTrace;

${GLOBALS_SOURCE}${GUARDS_SOURCE}${FLATTEN_GUARDS_SOURCE}${OUTPUTS_SOURCE}${TOOLS_SOURCE}${STATE_SOURCE}
defineProperty(G, 'text', { value: text, writable: true, configurable: true });
defineProperty(G, 'image', { value: image, writable: true, configurable: true });
defineProperty(G, 'console', { value: console, writable: true, configurable: true });

${FINISH_SOURCE}return deliver;
})`;
