/**
 * The source that wires the sandbox's globals. It evaluates to `setup(hostCall, emit, configJson)`:
 * hostCall is the host call Reference, emit the output Callback, configJson a BootstrapConfig.
 * setup installs tools, text, image and console, and a one-shot global FINISH_GLOBAL that the
 * wrapped script calls as `FINISH_GLOBAL(async () => {…})`: it deletes itself, runs the script's
 * function and answers with a tagged string (see BOOTSTRAP_SOURCE). Compiled once per isolate,
 * from V8's code cache after the first run: keep it small, it is most of a run's start-up after
 * isolate creation.
 *
 * Rules for this code: strict mode (so stack-trace callsites cannot hand out our functions or
 * `this`); builtins it needs are captured before the script runs, so a script that replaces them
 * only breaks itself; hostCall and emit live only in this closure, never on a global.
 */

import { HOST_CALLS_SOURCE } from './host-calls-source.js';
import { BASE64, IMAGE_MIME_TYPE } from './outputs.js';

export const BOOTSTRAP_FILENAME = 'berry-mcp:bootstrap';
export const FINISH_GLOBAL = '__berryFinish';

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
}

/**
 * The globals a script keeps: the ECMAScript standard library (with later editions' additions).
 * Anything else found on a new context's global comes from V8 flags of the host process
 * (--expose-gc, --expose-gc-as=NAME, --expose-statistics…) and is removed. Left out on purpose:
 * Intl (ICU objects live outside the V8 heap, unseen by the memory limit: measured 30 KB each,
 * gigabytes before the heap limit) and WebAssembly (its Memory grows outside the limit too).
 */
export const STANDARD_GLOBALS: readonly string[] = [
  'Object', 'Function', 'Array', 'Number', 'parseFloat', 'parseInt', 'Infinity', 'NaN', 'undefined', 'Boolean',
  'String', 'Symbol', 'Date', 'Promise', 'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError',
  'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'SuppressedError', 'globalThis', 'JSON', 'Math',
  'ArrayBuffer', 'SharedArrayBuffer', 'Atomics', 'DataView', 'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array',
  'Uint32Array', 'Int32Array', 'Float16Array', 'Float32Array', 'Float64Array', 'Uint8ClampedArray', 'BigUint64Array',
  'BigInt64Array', 'Map', 'BigInt', 'Set', 'WeakMap', 'WeakSet', 'Proxy', 'Reflect', 'FinalizationRegistry', 'WeakRef',
  'Iterator', 'DisposableStack', 'AsyncDisposableStack', 'decodeURI', 'decodeURIComponent', 'encodeURI',
  'encodeURIComponent', 'escape', 'unescape', 'eval', 'isFinite', 'isNaN',
];

/**
 * The in-isolate source (plain JavaScript, run by V8 inside the sandbox). The finish answer's first
 * character says what follows: '=' then the return value's JSON (nothing for undefined), '>' when
 * that JSON is longer than resultLimit, '!' then the thrown value as `{name, message, code?,
 * frames?}` JSON.
 */
export const BOOTSTRAP_SOURCE = String.raw`(function setup(hostCall, emit, configJson) {
'use strict';
const config = JSON.parse(configJson);
const G = globalThis, stringify = JSON.stringify, parse = JSON.parse;
const defineProperty = Object.defineProperty, freeze = Object.freeze, construct = Reflect.construct;
const Err = Error, TypeErr = TypeError, RangeErr = RangeError, Str = String, capture = Error.captureStackTrace;

// Everything but the standard library goes: see STANDARD_GLOBALS. A global that can be neither
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

// A resizable buffer reserves and grows memory outside the allocator that enforces the memory
// limit: refuse the options bag (read once: a getter could answer differently the second time).
const fixedLength = (Buffer, name) => {
  const Guarded = new Proxy(Buffer, { __proto__: null, construct(target, args, newTarget) {
    const options = args[1];
    if ((typeof options === 'object' || typeof options === 'function') && options !== null && options.maxByteLength !== undefined) {
      throw new RangeErr(name + ': resizable buffers (maxByteLength) are not available in the sandbox');
    }
    return construct(target, [args[0]], newTarget);
  } });
  defineProperty(Buffer.prototype, 'constructor', { value: Guarded, writable: true, configurable: true });
  defineProperty(G, name, { value: Guarded, writable: true, configurable: true });
};
fixedLength(ArrayBuffer, 'ArrayBuffer');
fixedLength(SharedArrayBuffer, 'SharedArrayBuffer');

// V8 aborts the whole process, with no RangeError (crbug.com/1201626), when one array would pass
// its longest length (2^27 - 2 elements); splitting or parsing a huge string (cheap to build by
// doubling) is the short way there. Refuse inputs that could get that far.
const MAX_ELEMENTS = 2 ** 27 - 16, apply = Reflect.apply, split = String.prototype.split, jsonParse = JSON.parse;
defineProperty(String.prototype, 'split', { value: { split(separator, limit) {
  if (this === null || this === undefined) return apply(split, this, [separator, limit]);
  const s = typeof this === 'string' ? this : Str(this);
  if (s.length >= MAX_ELEMENTS && !(limit !== undefined && limit >>> 0 < MAX_ELEMENTS)) {
    throw new RangeErr('String.prototype.split: a string of ' + s.length + ' characters is too long to split in the sandbox');
  }
  return apply(split, s, [separator, limit]);
} }.split, writable: true, configurable: true });
defineProperty(JSON, 'parse', { value: { parse(text, reviver) {
  const s = Str(text);
  if (s.length >= 2 * MAX_ELEMENTS) throw new RangeErr('JSON.parse: a text of ' + s.length + ' characters is too long to parse in the sandbox');
  return apply(jsonParse, JSON, [s, reviver]);
} }.parse, writable: true, configurable: true });
// Filling a huge holey array (new Array(2 ** 27).fill(0)) runs for 25 s on Node 26 and grows RSS
// to 2 GB outside the heap limit before the limit stops it; more elements than the limit could
// hold can never fit anyway. start and end go to the real fill as numbers, clamped to the length
// read here, so no valueOf or length getter can widen the range afterwards.
const fill = Array.prototype.fill, trunc = Math.trunc, FILL_LIMIT = config.fillLimit;
const toInteger = (v) => { const n = +v; return n !== n ? 0 : trunc(n); };
const clampIndex = (n, len) => (n < 0 ? (len + n < 0 ? 0 : len + n) : (n > len ? len : n));
defineProperty(Array.prototype, 'fill', { value: { fill(value, start, end) {
  if (this === null || this === undefined) return apply(fill, this, [value, start, end]);
  const o = Object(this);
  const from = toInteger(start), to = end === undefined ? undefined : toInteger(end);
  const length = toInteger(o.length), len = length < 0 ? 0 : length;
  const first = clampIndex(from, len), last = to === undefined ? len : clampIndex(to, len);
  if (last - first > FILL_LIMIT) {
    throw new RangeErr('Array.prototype.fill: ' + (last - first) + ' elements would not fit in the memory limit (memoryLimitMb)');
  }
  return apply(fill, o, [value, first, last]);
} }.fill, writable: true, configurable: true });
const MIME = /${IMAGE_MIME_TYPE.source}/, BASE64 = /${BASE64.source}/;
let remaining = config.remaining;

const cut = (s, max) => (s.length > max ? s.slice(0, max) + '… [truncated]' : s);
const messageOf = (e) => { try { return e instanceof Err ? Str(e.message) : Str(e); } catch { return 'unknown error'; } };
const show = (v) => {
  try {
    if (typeof v === 'string') return v;
    if (v instanceof Err) return typeof v.stack === 'string' ? v.stack : Str(v);
    const json = stringify(v);
    return json === undefined ? Str(v) : json;
  } catch {
    try { return Str(v); } catch { return '[unprintable]'; }
  }
};

// The host answers with the bytes still free, or -1 once the budget is spent. Never copy more
// than the budget across: the host only needs to see that an entry overflows.
const send = (kind, text, mimeType) => {
  if (remaining < 0) return;
  if (text.length > remaining) text = text.slice(0, remaining + 1);
  remaining = emit(kind, text, mimeType);
};
const line = (args) => {
  let s = '';
  for (let i = 0; i < args.length; i++) s += (i === 0 ? '' : ' ') + show(args[i]);
  return s;
};
const console = {
  log(...args) { send('log', line(args)); },
  info(...args) { send('info', line(args)); },
  warn(...args) { send('warn', line(args)); },
  error(...args) { send('error', line(args)); },
  debug(...args) { send('debug', line(args)); },
};
function text(value) {
  let s;
  if (typeof value === 'string') s = value;
  else if (value === undefined) s = 'undefined';
  else {
    try { s = stringify(value, null, 2); } catch (e) { throw new TypeErr('text(): the value cannot be converted to JSON (' + messageOf(e) + ')'); }
    if (s === undefined) s = Str(value);
  }
  send('text', s);
}
function image(block) {
  if (typeof block !== 'object' || block === null) {
    throw new TypeErr('image() expects an MCP image block { type: "image", data: "<base64>", mimeType: "image/png" }, got '
      + (block === null ? 'null' : typeof block));
  }
  const type = block.type, data = block.data, mimeType = block.mimeType;
  if (type !== 'image') throw new TypeErr('image(): block.type must be "image", got ' + cut(show(type), 80));
  if (typeof mimeType !== 'string' || !MIME.test(mimeType)) {
    throw new TypeErr('image(): block.mimeType must be an image MIME type such as "image/png", got ' + cut(show(mimeType), 80));
  }
  if (typeof data !== 'string' || data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
    throw new TypeErr('image(): block.data must be a non-empty base64 string');
  }
  send('image', data, mimeType);
}

${HOST_CALLS_SOURCE}
defineProperty(G, 'text', { value: text, writable: true, configurable: true });
defineProperty(G, 'image', { value: image, writable: true, configurable: true });
defineProperty(G, 'console', { value: console, writable: true, configurable: true });

const describe = (e) => {
  try {
    if (e instanceof Err) {
      const stack = e.stack, at = typeof stack === 'string' ? stack.indexOf('\n    at ') : -1;
      return {
        name: cut(Str(e.name), 200) || 'Error',
        message: cut(Str(e.message), 65536),
        code: typeof e.code === 'string' ? cut(e.code, 200) : undefined,
        frames: at < 0 ? undefined : stack.slice(at, at + 8192),
      };
    }
    let message;
    if (typeof e === 'object' && e !== null) { try { message = stringify(e); } catch {} }
    const code = (typeof e === 'object' || typeof e === 'function') && e !== null ? e.code : undefined;
    return { name: 'Error', message: cut(message === undefined ? Str(e) : message, 65536), code: typeof code === 'string' ? cut(code, 200) : undefined };
  } catch {
    return { name: 'Error', message: 'The script threw a value that cannot be described' };
  }
};
const run = async (main) => {
  let value, json;
  try { value = await main(); } catch (e) { return '!' + stringify(describe(e)); }
  try { json = stringify(value); } catch (e) {
    return '!' + stringify({ name: 'TypeError', message: 'The return value cannot be converted to JSON (' + messageOf(e) + ')' });
  }
  if (json === undefined) return '=';
  return json.length > config.resultLimit ? '>' : '=' + json;
};
const finish = (main) => {
  delete G.${FINISH_GLOBAL};
  return run(main);
};
defineProperty(G, '${FINISH_GLOBAL}', { value: finish, configurable: true });
})`;
