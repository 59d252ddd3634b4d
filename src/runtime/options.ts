import { DEFAULT_MAX_ARGUMENT_BYTES } from '../common/argument-limit.js';
import { StateValues } from './state/run-state.js';
import type { HostFunction, RunScriptOptions } from './types.js';

export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_MEMORY_LIMIT_MB = 128;
export const DEFAULT_OUTPUT_LIMIT_BYTES = 1_048_576;
export const DEFAULT_FILENAME = 'script.js';
export const DEFAULT_MAX_CONCURRENT_CALLS = 64;

/** isolated-vm refuses less. */
const MIN_MEMORY_LIMIT_MB = 8;
/** The largest delay setTimeout honours. */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** A function name must be usable as `tools.<name>`. */
const FUNCTION_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export interface NormalizedRunOptions {
  /** Null-prototype copy: a script's name can never reach an inherited property. */
  readonly functions: Readonly<Record<string, HostFunction>>;
  readonly names: readonly string[];
  readonly timeoutMs: number;
  readonly memoryLimitMb: number;
  readonly outputLimitBytes: number;
  readonly maxArgumentBytes: number;
  readonly maxConcurrentCalls: number;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: RunScriptOptions['onProgress'];
  readonly onOutput: RunScriptOptions['onOutput'];
  readonly onCallEnd: RunScriptOptions['onCallEnd'];
  readonly filename: string;
  readonly state: StateValues | undefined;
}

/** Fills defaults and validates; throws a TypeError that names the bad option. */
export function normalizeRunOptions(options: RunScriptOptions): NormalizedRunOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`runScript options must be an object, got ${describe(options)}`);
  }
  const { functions, names } = normalizeFunctions(options.functions);
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  const onProgress = options.onProgress;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(`options.onProgress must be a function, got ${describe(onProgress)}`);
  }
  const onOutput = options.onOutput;
  if (onOutput !== undefined && typeof onOutput !== 'function') {
    throw new TypeError(`options.onOutput must be a function, got ${describe(onOutput)}`);
  }
  const onCallEnd = options.onCallEnd;
  if (onCallEnd !== undefined && typeof onCallEnd !== 'function') {
    throw new TypeError(`options.onCallEnd must be a function, got ${describe(onCallEnd)}`);
  }
  const filename = options.filename ?? DEFAULT_FILENAME;
  if (typeof filename !== 'string' || filename === '' || filename.length > 1024 || /[\u0000-\u001f]/.test(filename)) {
    throw new TypeError(`options.filename must be a non-empty single-line string, got ${describe(filename)}`);
  }
  const state = options.state;
  if (state !== undefined && !(state instanceof StateValues)) {
    throw new TypeError(`options.state must be a state made by createRunState(), got ${describe(state)}`);
  }
  return {
    functions,
    names,
    timeoutMs: number('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS, 1, MAX_TIMEOUT_MS, false),
    memoryLimitMb: number('memoryLimitMb', options.memoryLimitMb, DEFAULT_MEMORY_LIMIT_MB, MIN_MEMORY_LIMIT_MB, Number.MAX_SAFE_INTEGER, true),
    outputLimitBytes: number('outputLimitBytes', options.outputLimitBytes, DEFAULT_OUTPUT_LIMIT_BYTES, 0, Number.MAX_SAFE_INTEGER, true),
    maxArgumentBytes: number('maxArgumentBytes', options.maxArgumentBytes, DEFAULT_MAX_ARGUMENT_BYTES, 1, Number.MAX_SAFE_INTEGER, true),
    maxConcurrentCalls: number('maxConcurrentCalls', options.maxConcurrentCalls, DEFAULT_MAX_CONCURRENT_CALLS, 1, 100_000, true),
    signal,
    onProgress,
    onOutput,
    onCallEnd,
    filename,
    state,
  };
}

function normalizeFunctions(table: unknown): { functions: Record<string, HostFunction>; names: string[] } {
  if (typeof table !== 'object' || table === null) {
    throw new TypeError(`options.functions must be an object of async functions, got ${describe(table)}`);
  }
  const functions: Record<string, HostFunction> = Object.create(null);
  const names = Object.keys(table);
  for (const name of names) {
    const fn = (table as Record<string, unknown>)[name];
    if (!FUNCTION_NAME.test(name)) {
      throw new TypeError(`options.functions: "${name}" is not a valid name for tools.<name> (use letters, digits, _ and $)`);
    }
    if (typeof fn !== 'function') {
      throw new TypeError(`options.functions.${name} must be a function, got ${describe(fn)}`);
    }
    functions[name] = fn as HostFunction;
  }
  return { functions, names };
}

function number(name: string, value: unknown, fallback: number, min: number, max: number, integer: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'an integer' : 'a number';
    throw new TypeError(`options.${name} must be ${kind} from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return typeof value;
}
