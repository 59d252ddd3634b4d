/**
 * The bootstrap's outputs fragment (see bootstrap.ts, whose rules it follows): `console`, `text`
 * and `image`, which send entries through `emit` within the output budget; bootstrap.ts installs
 * them as globals. Also defines cut, messageOf, show and noHugeStrings, used by the later fragments.
 * Uses the bootstrap's stringify, Err, TypeErr, Str and `config`, and FLAT, COPY and tooLong from
 * the flattening guards (a part of a rope is taken by copying all of it flat first).
 */

import { BASE64, IMAGE_MIME_TYPE } from '../outputs.js';

export const OUTPUTS_SOURCE = String.raw`// Made on image()'s first call: most runs never show an image (a literal costs ≈ 5 µs at setup).
let MIME, BASE64;
let remaining = config.remaining;

const cut = (s, max) => (s.length <= max ? s : (s.length > FLAT ? '[' + s.length + ' characters]' : s.slice(0, max)) + '… [truncated]');
// A replacer for stringify: no string is copied into JSON that the run could not copy anyway.
const noHugeStrings = (key, value) => {
  if (typeof value === 'string' && value.length > COPY) throw tooLong('JSON of the value', value.length);
  return value;
};
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
  if (text.length > remaining) {
    if (text.length > FLAT) throw tooLong(kind === 'text' || kind === 'image' ? kind + '()' : 'console.' + kind + '()', text.length);
    text = text.slice(0, remaining + 1);
  }
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
    try { s = stringify(value, noHugeStrings, 2); } catch (e) { throw new TypeErr('text(): the value cannot be converted to JSON (' + messageOf(e) + ')'); }
    if (s === undefined) s = Str(value);
  }
  send('text', s);
}
function image(block) {
  if (typeof block !== 'object' || block === null) {
    throw new TypeErr('image() expects an MCP image block { data: "<base64>", mimeType: "image/png" } (type: "image" optional), got '
      + (block === null ? 'null' : typeof block));
  }
  const type = block.type, data = block.data, mimeType = block.mimeType;
  // A block as mcp_call returns it has type "image"; one written by hand may leave it out.
  if (type !== undefined && type !== 'image') throw new TypeErr('image(): block.type must be "image" or left out, got ' + cut(show(type), 80));
  if (typeof mimeType !== 'string' || !(MIME ??= /${IMAGE_MIME_TYPE.source}/).test(mimeType)) {
    throw new TypeErr('image(): block.mimeType must be an image MIME type such as "image/png", got ' + cut(show(mimeType), 80));
  }
  if (typeof data === 'string' && data.length > FLAT) throw tooLong('image()', data.length);
  if (typeof data !== 'string' || data.length === 0 || data.length % 4 !== 0 || !(BASE64 ??= /${BASE64.source}/).test(data)) {
    throw new TypeErr('image(): block.data must be a non-empty base64 string');
  }
  send('image', data, mimeType);
}

`;
