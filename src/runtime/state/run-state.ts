/**
 * What `store(key, value)` and `load(key)` keep from one run to the next: one conversation's JSON
 * values, as JSON text by key, within bounds checked before anything is kept. The embedder (or
 * serve) owns a RunState and passes it to each run of the conversation; a run without one gets a
 * fresh state of its own.
 */
import { Buffer } from 'node:buffer';
import { BerryError } from '../../common/errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../json-depth.js';

/** The bounds of one state. Each is checked by every write; a write past one fails with SCRIPT_STATE_LIMIT and changes nothing. */
export interface RunStateLimits {
  /** Largest value, as JSON (UTF-8 bytes). @default 1048576 (1 MiB) */
  readonly maxValueBytes: number;
  /** Largest state: every key and value, UTF-8 bytes, together. @default 4194304 (4 MiB) */
  readonly maxTotalBytes: number;
  /** Most keys. @default 1000 */
  readonly maxKeys: number;
  /** Longest key, in characters (UTF-16 units). @default 256 */
  readonly maxKeyChars: number;
}

export const DEFAULT_STATE_LIMITS: RunStateLimits = Object.freeze({
  maxValueBytes: 1_048_576,
  maxTotalBytes: 4_194_304,
  maxKeys: 1000,
  maxKeyChars: 256,
});

/** The largest bound a state may be given: a state is held in memory and copied to each run. */
const MOST_BYTES = 1024 * 1024 * 1024;

/** Options of createRunState. */
export interface RunStateOptions extends Partial<RunStateLimits> {
  /** Values to start with (e.g. what `JSON.stringify(state)` saved), each checked as a store() would be. */
  readonly values?: Readonly<Record<string, unknown>>;
}

/** Plain data that carries a state to another process (a serve worker): its limits and its keys' JSON. */
export interface StateSnapshot {
  readonly limits: RunStateLimits;
  readonly entries: readonly (readonly [string, string])[];
}

/** What a run changed: each key's new JSON, or null where it was deleted. */
export type StateChanges = readonly (readonly [string, string | null])[];

/**
 * One conversation's state, as the embedder holds it: made by createRunState, passed to every run
 * of the conversation (`host.run(code, { state })`), read and written between runs if need be.
 * Values are JSON data; each read is a fresh copy.
 */
export interface RunState {
  readonly limits: RunStateLimits;
  /** Keys held. */
  readonly size: number;
  /** UTF-8 bytes of every key and value held: what maxTotalBytes bounds. */
  readonly bytes: number;
  /** A fresh copy of the value under `key`; undefined when there is none. */
  get(key: string): unknown;
  /** Keeps a copy of `value` (JSON data) under `key`; `undefined` deletes it. Throws SCRIPT_STATE_LIMIT past a bound. */
  set(key: string, value: unknown): void;
  has(key: string): boolean;
  delete(key: string): boolean;
  keys(): string[];
  clear(): void;
  /** Every value, for JSON.stringify(state): what createRunState({ values }) takes back. */
  toJSON(): Record<string, unknown>;
}

/** The RunState of createRunState, with the JSON text methods the runtime and serve use. */
export class StateValues implements RunState {
  readonly limits: RunStateLimits;
  /** Null-prototype by construction (a Map): a key such as `__proto__` is just a key. */
  readonly #values = new Map<string, string>();
  #bytes = 0;
  /** Keys written since tracking began (a serve worker's copy), their last JSON or null. */
  #changes: Map<string, string | null> | undefined;

  constructor(options: RunStateOptions = {}) {
    this.limits = normalizeLimits(options);
    if (options.values !== undefined) {
      if (typeof options.values !== 'object' || options.values === null) throw new TypeError('options.values must be an object of JSON values');
      for (const key of Object.keys(options.values)) this.set(key, options.values[key]);
    }
  }

  /** Keys held. */
  get size(): number {
    return this.#values.size;
  }

  /** UTF-8 bytes of every key and value held: what maxTotalBytes bounds. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A fresh copy of the value under `key`; undefined when there is none. */
  get(key: string): unknown {
    const json = this.#values.get(key);
    return json === undefined ? undefined : JSON.parse(json);
  }

  /** Keeps a copy of `value` (JSON data) under `key`; `undefined` deletes it. Throws SCRIPT_STATE_LIMIT past a bound. */
  set(key: string, value: unknown): void {
    if (value === undefined) {
      this.delete(key);
      return;
    }
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`state.set("${shown(key)}"): the value must be JSON data, got ${typeof value}`);
    this.setText(key, json);
  }

  has(key: string): boolean {
    return this.#values.has(key);
  }

  delete(key: string): boolean {
    const json = this.#values.get(key);
    if (json === undefined) return false;
    this.#values.delete(key);
    this.#bytes -= Buffer.byteLength(key, 'utf8') + Buffer.byteLength(json, 'utf8');
    this.#changes?.set(key, null);
    return true;
  }

  keys(): string[] {
    return [...this.#values.keys()];
  }

  clear(): void {
    for (const key of this.keys()) this.delete(key);
  }

  /** Every value, for JSON.stringify(state): what createRunState({ values }) takes back. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null);
    for (const [key, json] of this.#values) out[key] = JSON.parse(json);
    return out;
  }

  /** The JSON text under `key`. */
  getText(key: string): string | undefined {
    return this.#values.get(key);
  }

  /**
   * Keeps `json` (JSON text, trusted to parse: the caller made it with JSON.stringify) under `key`,
   * after checking every bound; past one, throws SCRIPT_STATE_LIMIT and keeps the state as it was.
   */
  setText(key: string, json: string): void {
    checkKey(key, this.limits);
    const bytes = Buffer.byteLength(json, 'utf8');
    const { maxValueBytes, maxTotalBytes, maxKeys } = this.limits;
    if (bytes > maxValueBytes) {
      throw limit(
        `store("${shown(key)}"): the value is ${bytes} bytes as JSON, more than the limit of ${maxValueBytes} bytes per value. Store less, or split it under several keys.`,
      );
    }
    if (nestedDeeperThan(json, MAX_JSON_DEPTH)) {
      throw limit(`store("${shown(key)}"): the value nests more than ${MAX_JSON_DEPTH} levels of arrays and objects. Store a flatter value.`);
    }
    const keyBytes = Buffer.byteLength(key, 'utf8');
    const old = this.#values.get(key);
    const freed = old === undefined ? 0 : keyBytes + Buffer.byteLength(old, 'utf8');
    if (old === undefined && this.#values.size >= maxKeys) {
      throw limit(
        `store("${shown(key)}"): the state holds ${this.#values.size} keys, the most it may (${maxKeys}). Delete some with store(key, undefined) first.`,
      );
    }
    const total = this.#bytes - freed + keyBytes + bytes;
    if (total > maxTotalBytes) {
      throw limit(
        `store("${shown(key)}"): the state would hold ${total} bytes, more than its limit of ${maxTotalBytes} bytes in all ` +
          `(it holds ${this.#bytes} in ${this.#values.size} keys). Delete some with store(key, undefined) first.`,
      );
    }
    this.#values.set(key, json);
    this.#bytes = total;
    this.#changes?.set(key, json);
  }

  /** Plain data for another process: the limits and every key's JSON (bounded by them). */
  snapshot(): StateSnapshot {
    return { limits: this.limits, entries: [...this.#values] };
  }

  /** A state rebuilt from a snapshot, every entry checked again, recording its changes from now on (takeChanges). */
  static fromSnapshot(snapshot: StateSnapshot): StateValues {
    const state = new StateValues(snapshot.limits);
    // Checked when each was stored: only counted here (a worker's copy of serve's own state).
    for (const [key, json] of snapshot.entries) {
      state.#values.set(key, json);
      state.#bytes += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(json, 'utf8');
    }
    state.#changes = new Map();
    return state;
  }

  /** What changed since fromSnapshot, and nothing after this. */
  takeChanges(): StateChanges {
    const changes = [...(this.#changes ?? [])];
    this.#changes?.clear();
    return changes;
  }

  /**
   * Applies another copy's changes in order; a change that would break a bound here (another run
   * of the same state filled it meanwhile) is skipped. Returns the keys skipped.
   */
  apply(changes: StateChanges): string[] {
    const skipped: string[] = [];
    for (const [key, json] of changes) {
      try {
        if (json === null) this.delete(key);
        else this.setText(key, json);
      } catch {
        skipped.push(key);
      }
    }
    return skipped;
  }
}

function checkKey(key: unknown, limits: RunStateLimits): asserts key is string {
  if (typeof key !== 'string') throw new TypeError(`store(key, value): the key must be a string, got ${key === null ? 'null' : typeof key}`);
  if (key.length > limits.maxKeyChars) {
    throw limit(`store("${shown(key)}"): the key is ${key.length} characters, more than the limit of ${limits.maxKeyChars}. Use a shorter key.`);
  }
}

function limit(message: string): BerryError {
  return new BerryError('SCRIPT_STATE_LIMIT', message);
}

/** A key as a message shows it: cut, and JSON-escaped so that it cannot break a line. */
function shown(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key).slice(1, -1);
}

function normalizeLimits(options: Partial<RunStateLimits>): RunStateLimits {
  if (typeof options !== 'object' || options === null) throw new TypeError('createRunState options must be an object');
  const pick = (name: keyof RunStateLimits, most: number): number => {
    const value = options[name] ?? DEFAULT_STATE_LIMITS[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > most) {
      throw new TypeError(`options.${name} must be an integer from 1 to ${most}, got ${String(value)}`);
    }
    return value;
  };
  const limits = {
    maxValueBytes: pick('maxValueBytes', MOST_BYTES),
    maxTotalBytes: pick('maxTotalBytes', MOST_BYTES),
    maxKeys: pick('maxKeys', 1_000_000),
    maxKeyChars: pick('maxKeyChars', 65_536),
  };
  return Object.freeze(limits);
}

/** A new, empty state (or one holding `options.values`) for one conversation: pass it to each of its runs. */
export function createRunState(options?: RunStateOptions): RunState {
  return new StateValues(options);
}
