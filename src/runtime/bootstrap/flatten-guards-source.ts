/**
 * The bootstrap's flattening guards fragment (see bootstrap.ts, whose rules it follows). A string
 * built by concatenation (`s = s + s`) is a rope of pieces: 2^28 characters cost almost nothing.
 * A builtin that needs the characters in one piece first copies the rope flat (one or two bytes a
 * character), and V8 lets that one copy past the heap limit; the builtins that then make a new
 * string as long (or an array of its matches) copy again, or end in V8's fatal errors. Measured at
 * `memoryLimitMb` 32 on a 2^28-character rope: +1 GB of RSS for JSON.stringify or toUpperCase of
 * a two-byte one, a parked isolate and +1.6 GB kept for match(/a/g), the process killed outright
 * for replace(/a/g, fn), 60 s of uninterruptible work for replaceAll('a', 'b').
 *
 * Each guard checks the length before the builtin runs, and throws a RangeError the script can
 * catch: longer than `config.flatLimit` (the memory limit in bytes) a string cannot be flat in the
 * heap at all, so only a rope is refused; a builtin whose result is as long as its input needs
 * twice its length, so those refuse past half of it. Originals live in this closure only. Uses the
 * bootstrap's G, defineProperty, RangeErr, Str, stringify, and apply, MAX_ELEMENTS, FLAT, COPY and
 * toInteger from the guards fragment.
 */

export const FLATTEN_GUARDS_SOURCE = String.raw`const StringProto = String.prototype, ArrayProto = Array.prototype;
const RegExpProto = RegExp.prototype, Obj = Object;
// ToString as the builtins do it (through concat: a Symbol throws, where String() would describe it).
const concat = StringProto.concat;
const toStr = (v) => (typeof v === 'string' ? v : apply(concat, '', [v]));
const tooLong = (what, length) => new RangeErr(what + ': a string of ' + length + ' characters is longer than this run can copy within its memory limit (memoryLimitMb)');
// Each wrapper converts its receiver once (as the builtin would) and hands the builtin the string.
const guardMethod = (proto, owner, name, max, wrap) => {
  const original = proto[name];
  defineProperty(proto, name, { value: wrap(original, owner + '.' + name, max), writable: true, configurable: true });
};
const onThis = (original, what, max) => ({ [original.name](a, b) {
  if (this === null || this === undefined) return apply(original, this, [a, b]);
  const s = toStr(this);
  if (s.length > max) throw tooLong(what, s.length);
  return apply(original, s, [a, b]);
} })[original.name];
// Case changes, normalize and toWellFormed make a string as long; replaceAll with a string pattern also runs
// without a check for termination (60 s at 2^28 characters, past the run's time limit).
for (const name of ['toUpperCase', 'toLowerCase', 'toLocaleUpperCase', 'toLocaleLowerCase', 'normalize', 'replaceAll', 'toWellFormed']) {
  if (typeof StringProto[name] === 'function') guardMethod(StringProto, 'String.prototype', name, COPY, onThis);
}
// What String.prototype.replace/match/matchAll/split hand a RegExp, and what a script may call
// itself: a global replace copies the whole string, a global match or a split makes an array of up
// to one element a character, whose growth V8 cannot always stop (a parked isolate, or a fatal
// "invalid size" that kills the process).
const onArgument = (original, what, max) => ({ [original.name](string, b) {
  const s = toStr(string);
  if (s.length > max) throw tooLong(what, s.length);
  return apply(original, this, [s, b]);
} })[original.name];
const guardRegExp = (symbol, max) => {
  const original = RegExpProto[symbol];
  defineProperty(RegExpProto, symbol, { value: onArgument(original, 'RegExp.prototype[' + Str(symbol.description) + ']', max), writable: true, configurable: true });
};
// A global replace keeps two entries a match while it works: past MAX_ELEMENTS V8 dies of "invalid size".
guardRegExp(Symbol.replace, COPY < MAX_ELEMENTS / 2 ? COPY : MAX_ELEMENTS / 2);
guardRegExp(Symbol.match, FLAT < MAX_ELEMENTS ? FLAT : MAX_ELEMENTS);
guardRegExp(Symbol.matchAll, FLAT < MAX_ELEMENTS ? FLAT : MAX_ELEMENTS);
guardRegExp(Symbol.split, FLAT < MAX_ELEMENTS ? FLAT : MAX_ELEMENTS);
// Encoding makes a longer string; decoding needs the input flat.
for (const name of ['encodeURI', 'encodeURIComponent', 'escape', 'decodeURI', 'decodeURIComponent', 'unescape']) {
  const original = G[name], max = name.charAt(0) === 'd' || name === 'unescape' ? FLAT : COPY;
  defineProperty(G, name, { value: onArgument(original, name, max), writable: true, configurable: true });
}
defineProperty(JSON, 'stringify', { value: { stringify(value, replacer, space) {
  if (typeof value === 'string' && value.length > COPY) throw tooLong('JSON.stringify', value.length);
  return apply(stringify, JSON, [value, replacer, space]);
} }.stringify, writable: true, configurable: true });
// join writes its result flat in one piece (ropes in it copied, not flattened). Here each element
// is converted once, in order, as join would, and the result is built by concatenation, counting
// its length as it grows: the same string, as a rope, refused before it passes half the limit.
const join = ArrayProto.join, toLocale = ArrayProto.toLocaleString;
// The arrays being joined, as join keeps them: an array inside itself joins as ''.
const joining = { __proto__: null };
let depth = 0;
const joined = (what, o, separator, convert) => {
  const length = toInteger(o.length), n = length < 0 ? 0 : length;
  const sep = separator === undefined ? ',' : toStr(separator);
  if (n === 0) return '';
  for (let d = 0; d < depth; d++) if (joining[d] === o) return '';
  if (sep.length * (n - 1) > COPY) throw tooLong(what, sep.length * (n - 1));
  joining[depth++] = o;
  try {
    let result = '';
    for (let i = 0; i < n; i++) {
      const e = o[i];
      const s = e === undefined || e === null ? '' : convert(e);
      result = i === 0 ? s : result + sep + s;
      if (result.length > COPY) throw tooLong(what, result.length);
    }
    return result;
  } finally {
    joining[--depth] = undefined;
  }
};
defineProperty(ArrayProto, 'join', { value: { join(separator) {
  if (this === null || this === undefined) return apply(join, this, [separator]);
  return joined('Array.prototype.join', Obj(this), separator, toStr);
} }.join, writable: true, configurable: true });
defineProperty(ArrayProto, 'toLocaleString', { value: { toLocaleString() {
  if (this === null || this === undefined) return apply(toLocale, this, []);
  return joined('Array.prototype.toLocaleString', Obj(this), ',', (e) => toStr(e.toLocaleString()));
} }.toLocaleString, writable: true, configurable: true });
`;
