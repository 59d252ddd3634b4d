/**
 * The bootstrap's guards fragment (see bootstrap.ts, whose rules it follows): wraps the builtins
 * whose huge inputs would grow memory outside the heap limit or abort the host process
 * (resizable ArrayBuffer, String.prototype.split, JSON.parse, Array.prototype.fill), and defines
 * FLAT and COPY for the flattening guards that follow. Uses the bootstrap's G, defineProperty,
 * construct, RangeErr, Str and `config`.
 */

export const GUARDS_SOURCE = String.raw`// A resizable buffer reserves and grows memory outside the allocator that enforces the memory
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
// A string longer than the memory limit in bytes cannot be flat in the heap: it is a rope, and
// reading it copies it flat outside the limit (see flatten-guards-source.ts).
const FLAT = config.flatLimit, COPY = FLAT / 2;
defineProperty(String.prototype, 'split', { value: { split(separator, limit) {
  if (this === null || this === undefined) return apply(split, this, [separator, limit]);
  const s = typeof this === 'string' ? this : Str(this);
  if (s.length > FLAT || (s.length >= MAX_ELEMENTS && !(limit !== undefined && limit >>> 0 < MAX_ELEMENTS))) {
    throw new RangeErr('String.prototype.split: a string of ' + s.length + ' characters is too long to split in the sandbox');
  }
  return apply(split, s, [separator, limit]);
} }.split, writable: true, configurable: true });
defineProperty(JSON, 'parse', { value: { parse(text, reviver) {
  const s = Str(text);
  if (s.length > FLAT || s.length >= 2 * MAX_ELEMENTS) throw new RangeErr('JSON.parse: a text of ' + s.length + ' characters is too long to parse in the sandbox');
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
`;
