import { Buffer } from 'node:buffer';
import type { CrossingGate } from './crossing.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-depth.js';
import type { ErrorShape, HostCallContext, HostFunction, HostProgress, RunProgress, RunScriptOptions } from './types.js';

const noProgress = (): void => {};

/**
 * The code of a call whose arguments are refused (too large, too deep): the one every caller of the host functions
 * already branches on for arguments it cannot send.
 */
export const ARGUMENT_REFUSED = 'MCP_INVALID_ARGUMENT';

/** Longest error message that crosses into the sandbox, as for the script's own errors. */
const MAX_MESSAGE_CHARS = 65_536;
const MAX_NAME_CHARS = 200;

export interface BridgeOptions {
  readonly onProgress?: RunScriptOptions['onProgress'];
  readonly onCallEnd?: RunScriptOptions['onCallEnd'];
  /** @default Infinity */
  readonly maxArgumentBytes?: number;
  /** Decides whether each answer fits in the isolate before it crosses; none: every answer crosses. */
  readonly gate?: CrossingGate;
}

/**
 * The host side of `tools.<name>(args)`. The sandbox sends the function name and the arguments as
 * a JSON string and gets back a JSON envelope, `{ok:true,value}` or `{ok:false,error}`: it never
 * rejects, so no host error object (with its stack and file paths) ever enters the isolate.
 */
export class HostBridge {
  readonly #functions: Readonly<Record<string, HostFunction>>;
  readonly #onProgress: RunScriptOptions['onProgress'];
  readonly #onCallEnd: RunScriptOptions['onCallEnd'];
  /** The run's: every call's signal, aborted when the run ends. One per run, not per call. */
  readonly #controller = new AbortController();
  #closed: (() => Error) | undefined;
  readonly #maxArgumentBytes: number;
  readonly #gate: CrossingGate | undefined;
  #calls = 0;
  /** Calls whose host function has not settled yet: what close() has to abort. */
  #inFlight = 0;

  constructor(functions: Readonly<Record<string, HostFunction>>, options: BridgeOptions = {}) {
    this.#functions = functions;
    this.#onProgress = options.onProgress;
    this.#onCallEnd = options.onCallEnd;
    this.#maxArgumentBytes = options.maxArgumentBytes ?? Infinity;
    this.#gate = options.gate;
  }

  /** Host function calls made. */
  get calls(): number {
    return this.#calls;
  }

  /** Passed into the isolate as a Reference; called as `apply(undefined, [name, json], { result: { promise: true } })`. */
  readonly dispatch = async (name: unknown, json: unknown): Promise<string> => {
    const fn = typeof name === 'string' ? this.#functions[name] : undefined;
    if (fn === undefined) return errorEnvelope({ name: 'TypeError', message: `tools.${String(name)} is not a function` });
    if (this.#closed !== undefined) return errorEnvelope(shapeHostError(this.#closed()));
    // The sandbox checks UTF-16 length before sending; bytes can be up to 3 times that.
    const bytes = typeof json === 'string' ? Buffer.byteLength(json, 'utf8') : 0;
    if (bytes > this.#maxArgumentBytes) {
      return errorEnvelope({
        name: 'RangeError',
        message: `tools.${name}(): the arguments are ${bytes} bytes as JSON, more than the limit of ${this.#maxArgumentBytes} bytes (maxArgumentBytes). Send less in one call.`,
        code: ARGUMENT_REFUSED,
      });
    }
    if (typeof json === 'string' && nestedDeeperThan(json, MAX_JSON_DEPTH)) {
      return errorEnvelope({
        name: 'RangeError',
        message: `tools.${name}(): the arguments nest more than ${MAX_JSON_DEPTH} levels of arrays and objects. Send a flatter value.`,
        code: ARGUMENT_REFUSED,
      });
    }
    let args: unknown;
    try {
      args = typeof json === 'string' ? JSON.parse(json) : undefined;
    } catch (error) {
      return errorEnvelope({ name: 'TypeError', message: `tools.${name}(): arguments are not valid JSON (${messageOf(error)})` });
    }
    const call = { id: ++this.#calls, settled: false, reported: false };
    const context: HostCallContext = { signal: this.#controller.signal, onProgress: this.#progressFor(name as string, call) };
    let envelope: string;
    this.#inFlight++;
    try {
      envelope = okEnvelope(name as string, await fn(args, context));
    } catch (error) {
      envelope = errorEnvelope(shapeHostError(error));
    } finally {
      this.#inFlight--;
      call.settled = true;
      if (call.reported) this.#callEnded(name as string, call.id);
    }
    const refused = await this.#gate?.check(name as string, envelope);
    return refused === undefined ? envelope : errorEnvelope(refused);
  };

  #callEnded(fn: string, id: number): void {
    try {
      this.#onCallEnd?.({ fn, call: id });
    } catch {
      // A failing listener must not fail the call.
    }
  }

  /** Aborts every call still in flight with `reason()`; calls arriving later are refused with it. */
  close(reason: () => Error): void {
    if (this.#closed !== undefined) return;
    this.#closed = reason;
    // Most runs end with no call in flight: then no reason (an Error, with its stack) is built.
    if (this.#inFlight > 0) this.#controller.abort(reason());
  }

  #progressFor(fn: string, call: { readonly id: number; readonly settled: boolean; reported: boolean }): (p: HostProgress) => void {
    const listener = this.#onProgress;
    if (listener === undefined) return noProgress;
    return (p) => {
      if (call.settled || this.#closed !== undefined || typeof p !== 'object' || p === null) return;
      const event: { -readonly [K in keyof RunProgress]: RunProgress[K] } = { fn, call: call.id, progress: p.progress };
      if (typeof p.label === 'string') event.label = p.label;
      if (p.total !== undefined) event.total = p.total;
      if (p.message !== undefined) event.message = p.message;
      call.reported = true;
      try {
        listener(event);
      } catch {
        // A failing progress listener must not fail the call that reported progress.
      }
    };
  }
}

function okEnvelope(name: string, value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return errorEnvelope({ name: 'TypeError', message: `tools.${name}() returned a value that cannot be converted to JSON (${messageOf(error)})` });
  }
  return json === undefined ? '{"ok":true}' : `{"ok":true,"value":${json}}`;
}

function errorEnvelope(error: ErrorShape): string {
  return JSON.stringify({ ok: false, error });
}

/** name, message and a string `code` of anything thrown; never throws itself. */
export function shapeHostError(error: unknown): ErrorShape {
  try {
    if (typeof error === 'object' && error !== null) {
      const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
      return {
        name: typeof name === 'string' && name !== '' ? cut(name, MAX_NAME_CHARS) : 'Error',
        message: cut(typeof message === 'string' ? message : jsonOrString(error)),
        ...(typeof code === 'string' ? { code: cut(code, MAX_NAME_CHARS) } : {}),
      };
    }
    return { name: 'Error', message: cut(String(error)) };
  } catch {
    return { name: 'Error', message: 'A host function failed with a value that cannot be described' };
  }
}

function cut(text: string, max = MAX_MESSAGE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… [truncated]` : text;
}

function jsonOrString(value: object): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
