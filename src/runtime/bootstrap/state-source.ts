/**
 * The bootstrap's state fragment (see bootstrap.ts, whose rules it follows): `store(key, value)`
 * and `load(key)`, synchronous, over the `stateCall` Callback (its answers: state/state-bridge.ts).
 * `store` turns the value into JSON here, refusing what JSON would silently lose (functions,
 * symbols, BigInt, Map, Set, binary data, errors…) and stopping once past the per-value limit, so
 * only a bounded JSON text ever crosses; `load` parses a fresh copy of what the host lets in after
 * measuring the isolate's room. Uses the bootstrap's G, defineProperty, stringify, parse, capture,
 * Err, TypeErr, RangeErr, apply and COPY (guards), tooLong (flattening guards), messageOf (outputs),
 * toError (tools) and the `stateCall` Callback.
 */

export const STATE_SOURCE = String.raw`const sliceStr = StringProto.slice, isArrayState = Array.isArray, getProto = Object.getPrototypeOf;
const ObjectProto = Object.prototype, ArrayProtoState = Array.prototype, isView = ArrayBuffer.isView;
const MapC = Map, SetC = Set, WeakMapC = WeakMap, WeakSetC = WeakSet, WeakRefC = WeakRef, PromiseC = Promise, RegExpC = RegExp;
const ABC = ArrayBuffer, SABC = SharedArrayBuffer;
// What asks isolated-vm's allocator for a full collection (see isolateRoom in crossing.ts).
const COLLECT = 2 * config.flatLimit + 67108864;
const LIMIT_CODE = 'SCRIPT_STATE_LIMIT';
// [largest value in bytes, longest key in characters]: the run's state says, at the first store or load.
let stateLimits = null;
const answerOf = (answer, fn) => {
  if (answer === undefined) return undefined;
  const body = apply(sliceStr, answer, [1]);
  if (answer[0] === '!') throw toError(parse(body), fn);
  return parse(body);
};
const limitsOf = (fn) => (stateLimits === null ? (stateLimits = answerOf(stateCall('limits'), fn)) : stateLimits);
const shownKey = (key) => stringify(key);
const stateError = (Kind, message, fn, code) => {
  const error = new Kind(message);
  if (code !== undefined) error.code = code;
  capture(error, fn);
  return error;
};
const checkKey = (key, fn, name) => {
  if (typeof key !== 'string') throw stateError(TypeErr, name + '(key): the key must be a string, got ' + (key === null ? 'null' : typeof key), fn);
  const most = limitsOf(fn)[1];
  // A longer key is never shown: it may be a rope that showing would copy flat.
  if (key.length > most) throw stateError(RangeErr, name + '(): the key is ' + key.length + ' characters, more than the limit of ' + most + '. Use a shorter key.', fn, LIMIT_CODE);
};
// What JSON would keep as {} or drop without a word: refused, with the way to store it.
const kindOf = (value) => {
  if (value instanceof MapC) return 'a Map (store Object.fromEntries(map) or [...map])';
  if (value instanceof SetC) return 'a Set (store [...set])';
  if (value instanceof WeakMapC || value instanceof WeakSetC || value instanceof WeakRefC) return 'a weak collection';
  if (value instanceof PromiseC) return 'a Promise (await it first)';
  if (value instanceof RegExpC) return 'a RegExp (store its source)';
  if (value instanceof Err) return 'an Error (store { name, message })';
  if (isView(value) || value instanceof ABC || value instanceof SABC) return 'binary data (store an array of numbers, or base64 text)';
  return undefined;
};
const TOO_BIG_VALUE = {}, NOT_JSON = {};
let refused = null, longString = 0, storeCounted = 0, storeMost = 0;
// Counts the JSON as stringify builds it (as tools' tally does) and refuses what is not JSON data.
const storeTally = function (key, value) {
  const t = typeof value;
  if (t === 'string') {
    // Refused before stringify copies it: a long string may be a rope, flat only outside the limit.
    if (value.length > COPY) { longString = value.length; throw TOO_BIG_VALUE; }
    storeCounted += value.length;
    if (storeCounted > storeMost) throw TOO_BIG_VALUE;
  } else if (t === 'object' && value !== null) {
    const proto = getProto(value);
    if (proto !== ObjectProto && proto !== ArrayProtoState && proto !== null) {
      const what = kindOf(value);
      if (what !== undefined) { refused = { __proto__: null, what, key }; throw NOT_JSON; }
    }
    storeCounted++;
  } else if (t === 'function' || t === 'symbol' || t === 'bigint') {
    refused = { __proto__: null, what: t === 'function' ? 'a function' : t === 'symbol' ? 'a symbol' : 'a BigInt (store it as a string)', key };
    throw NOT_JSON;
  } else {
    storeCounted++;
  }
  storeCounted += isArrayState(this) ? 0 : key.length;
  if (storeCounted > storeMost) throw TOO_BIG_VALUE;
  return value;
};
const tooBigValue = (key, size, fn) => stateError(RangeErr, 'store(' + shownKey(key) + '): the value is ' + size + ' characters as JSON, more than the limit of '
  + storeMost + ' bytes per value. Store less, or split it under several keys.', fn, LIMIT_CODE);
function store(key, value) {
  checkKey(key, store, 'store');
  if (value === undefined) { answerOf(stateCall('delete', key), store); return; }
  storeMost = limitsOf(store)[0];
  storeCounted = 0;
  longString = 0;
  refused = null;
  let json;
  try {
    json = stringify(value, storeTally);
  } catch (e) {
    if (e === TOO_BIG_VALUE && longString > 0) throw stateError(RangeErr, tooLong('store()', longString).message, store);
    if (e === TOO_BIG_VALUE) throw tooBigValue(key, 'at least ' + storeCounted, store);
    if (e === NOT_JSON) {
      const at = refused.key === '' ? 'the value is ' : 'the value holds, at key ' + shownKey(refused.key) + ', ';
      throw stateError(TypeErr, 'store(' + shownKey(key) + '): ' + at + refused.what + ', which is not JSON data.', store);
    }
    throw stateError(TypeErr, 'store(' + shownKey(key) + '): the value cannot be converted to JSON (' + messageOf(e) + ')', store);
  }
  if (json === undefined) throw stateError(TypeErr, 'store(' + shownKey(key) + '): the value has no JSON form (its toJSON returned undefined).', store);
  if (json.length > storeMost) throw tooBigValue(key, json.length, store);
  answerOf(stateCall('store', key, json), store);
}
function load(key) {
  checkKey(key, load, 'load');
  let answer = stateCall('load', key);
  if (answer === '~') {
    try { new ABC(COLLECT); } catch {}
    answer = stateCall('load-again', key);
  }
  return answerOf(answer, load);
}
defineProperty(G, 'store', { value: store, writable: true, configurable: true });
defineProperty(G, 'load', { value: load, writable: true, configurable: true });
`;
