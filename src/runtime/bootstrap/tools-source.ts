/**
 * The bootstrap's tools fragment, the in-isolate half of a host call (see bootstrap.ts, whose rules
 * it follows): it installs the frozen global `tools` and defines `deliver`, which the setup hands
 * back to the host. It uses the bootstrap's captured builtins (G, defineProperty, freeze, capture,
 * stringify, parse, Err, TypeErr, RangeErr, messageOf), its `config` and the `hostCall` Callback.
 *
 * A call crosses twice, once each way: `hostCall(id, name, json)` (an ignored Callback: the host runs
 * it, nothing comes back) and the host's `deliver(id, envelope)` (applyIgnored) when the answer is
 * ready. An awaited Reference.apply crosses three times (the host's pending promise reaches the
 * isolate first, its value later), and each crossing wakes a thread.
 */
export const TOOLS_SOURCE = String.raw`// A long answer arrives as an ExternalCopy (see toCrossing in crossing.ts): copied here, inside a
// synchronous call, one that does not fit ends the run instead of aborting the host process.
const take = (copy) => { try { return copy.copy(); } finally { copy.release(); } };
// The stack starts at the script's await: our own frames would only be noise.
const toError = (shape, from) => {
  const error = new Err(shape.message);
  if (shape.name !== 'Error') defineProperty(error, 'name', { __proto__: null, value: shape.name, writable: true, configurable: true });
  if (shape.code !== undefined) error.code = shape.code;
  capture(error, from);
  return error;
};
const Prom = Promise;
// The resolve function of each call in flight, by id: a null-prototype object, so no script change
// to Map or Object.prototype reaches it.
const waiting = { __proto__: null };
let nextId = 0;
const deliver = (id, raw) => {
  const resolve = waiting[id];
  if (resolve === undefined) return;
  delete waiting[id];
  // An ExternalCopy goes in a null-prototype box: no then() a script adds to Object.prototype sees it.
  resolve(typeof raw === 'string' ? raw : { __proto__: null, copy: raw });
};
const cross = (name, json) => new Prom((resolve) => {
  const id = ++nextId;
  waiting[id] = resolve;
  hostCall(id, name, json);
});
// At most maxCalls host calls cross at once; the rest queue here, in the script's own (limited)
// memory, so a loop that starts calls without awaiting them cannot flood the host.
let active = 0, first = null, last = null;
const slot = () => {
  if (active < config.maxCalls) { active++; return undefined; }
  return new Prom((resolve) => {
    const waiter = { __proto__: null, resolve, next: null };
    if (last === null) first = waiter; else last.next = waiter;
    last = waiter;
  });
};
// Hands the slot to the next waiter, if any.
const release = () => {
  const waiter = first;
  if (waiter === null) { active--; return; }
  first = waiter.next;
  if (first === null) last = null;
  waiter.resolve();
};
// Counts what a call's JSON will hold at least while stringify builds it (string characters, and
// keys of objects), and stops it once past the limit: an oversized argument fails after about
// limit characters instead of first building its whole JSON (50 MB for 50 references to 1 MB).
const TOO_BIG = {};
let counted = 0;
const isArray = Array.isArray;
const tally = function (key, value) {
  counted += (isArray(this) ? 0 : key.length) + (typeof value === 'string' ? value.length : 1);
  if (counted > config.argumentLimit) throw TOO_BIG;
  return value;
};
const tooBig = (name, size, fn) => {
  const error = new RangeErr('tools.' + name + '(): the arguments are ' + size + ' characters as JSON, more than the limit of '
    + config.argumentLimit + ' bytes (maxArgumentBytes). Send less in one call.');
  error.code = config.argumentCode;
  capture(error, fn);
  return error;
};
const tools = {};
for (let i = 0; i < config.names.length; i++) {
  const name = config.names[i];
  const fn = { async [name](args) {
    let json;
    counted = 0;
    try {
      json = stringify(args, tally);
    } catch (e) {
      if (e === TOO_BIG) throw tooBig(name, 'at least ' + counted, fn);
      throw new TypeErr('tools.' + name + '(): the arguments cannot be converted to JSON (' + messageOf(e) + ')');
    }
    if (json === undefined && args !== undefined) {
      throw new TypeErr('tools.' + name + '(): the arguments must be JSON data, got ' + typeof args);
    }
    // UTF-8 takes at least a byte per UTF-16 unit: past the limit here is past it in bytes too.
    if (json !== undefined && json.length > config.argumentLimit) throw tooBig(name, json.length, fn);
    const wait = slot();
    if (wait !== undefined) await wait;
    let raw;
    try { raw = await cross(name, json); } finally { release(); }
    const reply = parse(typeof raw === 'string' ? raw : take(raw.copy));
    if (reply.ok) return reply.value;
    throw toError(reply.error, fn);
  } }[name];
  defineProperty(tools, name, { value: freeze(fn), enumerable: true });
}
defineProperty(G, 'tools', { value: freeze(tools) });`;
