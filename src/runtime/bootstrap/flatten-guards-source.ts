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
 * bootstrap's G, RangeErr and stringify, and apply, MAX_ELEMENTS, FLAT, COPY and toInteger from the
 * guards fragment.
 */

export const FLATTEN_GUARDS_SOURCE = String.raw`const StringProto = String.prototype, ArrayProto = Array.prototype;
const RegExpProto = RegExp.prototype, Obj = Object;
// ToString as the builtins do it (through concat: a Symbol throws, where String() would describe it).
const concat = StringProto.concat;
const toStr = (v) => (typeof v === 'string' ? v : apply(concat, '', [v]));
const tooLong = (what, length) => new RangeErr(what + ': a string of ' + length + ' characters is longer than this run can copy within its memory limit (memoryLimitMb)');
// Each wrapper converts its receiver (onThis) or its first argument (onArgument) once, as the
// builtin would, and hands the builtin the string. The wrappers are methods of object literals,
// named as the builtins are, and assigned over them (builtins are writable, not enumerable, and
// stay so): one literal a group costs less at setup than a function made and defined per name.
const onThis = (original, what, max, self, a, b) => {
  if (self === null || self === undefined) return apply(original, self, [a, b]);
  const s = toStr(self);
  if (s.length > max) throw tooLong(what, s.length);
  return apply(original, s, [a, b]);
};
const onArgument = (original, what, max, self, string, b) => {
  const s = toStr(string);
  if (s.length > max) throw tooLong(what, s.length);
  return apply(original, self, [s, b]);
};
// Case changes, normalize and toWellFormed make a string as long; replaceAll with a string pattern also runs
// without a check for termination (60 s at 2^28 characters, past the run's time limit).
const { toUpperCase, toLowerCase, toLocaleUpperCase, toLocaleLowerCase, normalize, replaceAll, toWellFormed } = StringProto;
const strings = {
  toUpperCase(a, b) { return onThis(toUpperCase, 'String.prototype.toUpperCase', COPY, this, a, b); },
  toLowerCase(a, b) { return onThis(toLowerCase, 'String.prototype.toLowerCase', COPY, this, a, b); },
  toLocaleUpperCase(a, b) { return onThis(toLocaleUpperCase, 'String.prototype.toLocaleUpperCase', COPY, this, a, b); },
  toLocaleLowerCase(a, b) { return onThis(toLocaleLowerCase, 'String.prototype.toLocaleLowerCase', COPY, this, a, b); },
  normalize(a, b) { return onThis(normalize, 'String.prototype.normalize', COPY, this, a, b); },
  replaceAll(a, b) { return onThis(replaceAll, 'String.prototype.replaceAll', COPY, this, a, b); },
  toWellFormed(a, b) { return onThis(toWellFormed, 'String.prototype.toWellFormed', COPY, this, a, b); },
};
StringProto.toUpperCase = strings.toUpperCase;
StringProto.toLowerCase = strings.toLowerCase;
StringProto.toLocaleUpperCase = strings.toLocaleUpperCase;
StringProto.toLocaleLowerCase = strings.toLocaleLowerCase;
StringProto.normalize = strings.normalize;
StringProto.replaceAll = strings.replaceAll;
if (typeof toWellFormed === 'function') StringProto.toWellFormed = strings.toWellFormed;
// What String.prototype.replace/match/matchAll/split hand a RegExp, and what a script may call
// itself: a global replace copies the whole string, a global match or a split makes an array of up
// to one element a character, whose growth V8 cannot always stop (a parked isolate, or a fatal
// "invalid size" that kills the process). A global replace keeps two entries a match while it
// works: past MAX_ELEMENTS V8 dies of "invalid size".
const REPLACE_MAX = COPY < MAX_ELEMENTS / 2 ? COPY : MAX_ELEMENTS / 2, ARRAY_MAX = FLAT < MAX_ELEMENTS ? FLAT : MAX_ELEMENTS;
const replace = RegExpProto[Symbol.replace], match = RegExpProto[Symbol.match], matchAll = RegExpProto[Symbol.matchAll], splitter = RegExpProto[Symbol.split];
// String keys named as the builtins are ('[Symbol.replace]'), assigned under the symbols.
const regexps = {
  '[Symbol.replace]'(string, b) { return onArgument(replace, 'RegExp.prototype[Symbol.replace]', REPLACE_MAX, this, string, b); },
  '[Symbol.match]'(string, b) { return onArgument(match, 'RegExp.prototype[Symbol.match]', ARRAY_MAX, this, string, b); },
  '[Symbol.matchAll]'(string, b) { return onArgument(matchAll, 'RegExp.prototype[Symbol.matchAll]', ARRAY_MAX, this, string, b); },
  '[Symbol.split]'(string, b) { return onArgument(splitter, 'RegExp.prototype[Symbol.split]', ARRAY_MAX, this, string, b); },
};
RegExpProto[Symbol.replace] = regexps['[Symbol.replace]'];
RegExpProto[Symbol.match] = regexps['[Symbol.match]'];
RegExpProto[Symbol.matchAll] = regexps['[Symbol.matchAll]'];
RegExpProto[Symbol.split] = regexps['[Symbol.split]'];
// Encoding makes a longer string; decoding needs the input flat.
const { encodeURI, encodeURIComponent, escape, decodeURI, decodeURIComponent, unescape } = G;
const codings = {
  encodeURI(string, b) { return onArgument(encodeURI, 'encodeURI', COPY, this, string, b); },
  encodeURIComponent(string, b) { return onArgument(encodeURIComponent, 'encodeURIComponent', COPY, this, string, b); },
  escape(string, b) { return onArgument(escape, 'escape', COPY, this, string, b); },
  decodeURI(string, b) { return onArgument(decodeURI, 'decodeURI', FLAT, this, string, b); },
  decodeURIComponent(string, b) { return onArgument(decodeURIComponent, 'decodeURIComponent', FLAT, this, string, b); },
  unescape(string, b) { return onArgument(unescape, 'unescape', FLAT, this, string, b); },
};
G.encodeURI = codings.encodeURI;
G.encodeURIComponent = codings.encodeURIComponent;
G.escape = codings.escape;
G.decodeURI = codings.decodeURI;
G.decodeURIComponent = codings.decodeURIComponent;
G.unescape = codings.unescape;
JSON.stringify = { stringify(value, replacer, space) {
  if (typeof value === 'string' && value.length > COPY) throw tooLong('JSON.stringify', value.length);
  return apply(stringify, JSON, [value, replacer, space]);
} }.stringify;
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
const arrays = {
  join(separator) {
    if (this === null || this === undefined) return apply(join, this, [separator]);
    return joined('Array.prototype.join', Obj(this), separator, toStr);
  },
  toLocaleString() {
    if (this === null || this === undefined) return apply(toLocale, this, []);
    return joined('Array.prototype.toLocaleString', Obj(this), ',', (e) => toStr(e.toLocaleString()));
  },
};
ArrayProto.join = arrays.join;
ArrayProto.toLocaleString = arrays.toLocaleString;
`;
