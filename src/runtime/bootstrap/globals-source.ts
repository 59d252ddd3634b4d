/**
 * The bootstrap's globals fragment (see bootstrap.ts, whose rules it follows): removes from the
 * sandbox's global every name that is not in STANDARD_GLOBALS. Uses the bootstrap's G,
 * defineProperty, Err and Str.
 */

/**
 * The globals a script keeps: the ECMAScript standard library (with later editions' additions).
 * Anything else found on a new context's global comes from V8 flags of the host process
 * (--expose-gc, --expose-gc-as=NAME, --expose-statistics…) and is removed. Left out on purpose:
 * Intl (ICU objects live outside the V8 heap, unseen by the memory limit: measured 30 KB each,
 * gigabytes before the heap limit) and WebAssembly (its Memory grows outside the limit too).
 */
export const STANDARD_GLOBALS: readonly string[] = [
  'Object',
  'Function',
  'Array',
  'Number',
  'parseFloat',
  'parseInt',
  'Infinity',
  'NaN',
  'undefined',
  'Boolean',
  'String',
  'Symbol',
  'Date',
  'Promise',
  'RegExp',
  'Error',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
  'SuppressedError',
  'globalThis',
  'JSON',
  'Math',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'Atomics',
  'DataView',
  'Uint8Array',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float16Array',
  'Float32Array',
  'Float64Array',
  'Uint8ClampedArray',
  'BigUint64Array',
  'BigInt64Array',
  'Map',
  'BigInt',
  'Set',
  'WeakMap',
  'WeakSet',
  'Proxy',
  'Reflect',
  'FinalizationRegistry',
  'WeakRef',
  'Iterator',
  'DisposableStack',
  'AsyncDisposableStack',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'unescape',
  'eval',
  'isFinite',
  'isNaN',
];

export const GLOBALS_SOURCE = String.raw`// Everything but the standard library goes: see STANDARD_GLOBALS. A global that can be neither
// deleted nor emptied fails the setup rather than stay reachable.
const keep = new Set(${JSON.stringify(STANDARD_GLOBALS)});
const keys = Reflect.ownKeys(G);
for (let i = 0; i < keys.length; i++) {
  const key = keys[i];
  if (typeof key === 'string' && keep.has(key)) continue;
  if (Reflect.deleteProperty(G, key)) continue;
  try { defineProperty(G, key, { value: undefined, writable: false }); } catch {
    throw new Err('the global "' + Str(key) + '" (added by a V8 flag of the host) cannot be removed');
  }
}

`;
