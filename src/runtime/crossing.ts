import { Buffer } from 'node:buffer';
import type IsolatedVm from 'isolated-vm';
import type { BerryErrorCode } from '../common/errors.js';
import type { ErrorShape } from './types.js';
import type { Ivm } from './load-ivm.js';

/**
 * The code of a host function's answer that cannot fit in the run's memory: the call fails in the
 * script, nothing is copied into the isolate.
 */
export const RESULT_TOO_LARGE = 'MCP_RESULT_TOO_LARGE' satisfies BerryErrorCode;

/**
 * isolated-vm copies a string of this many bytes or more into an isolate as an external string,
 * which it checks against the memory limit once copied: on the path of an async host call's
 * answer, a string that does not fit throws ivm::FatalRuntimeError where nothing catches it, and
 * the whole process aborts. Shorter strings go into the V8 heap, which fails gracefully.
 */
export const EXTERNAL_STRING_BYTES = 1024;

/**
 * Room kept free besides the answer: what the script allocates between the measurement and the
 * copy, and what the isolate needs to go on working.
 */
export function marginBytes(memoryLimitBytes: number): number {
  return 1024 * 1024 + memoryLimitBytes / 16;
}

/**
 * What parsing adds per ",", "{" or "[" beyond the text's own bytes (object and array headers,
 * slots, numbers). Measured on Node 20: 5–8 bytes for MCP-like arrays of objects, 6 for small
 * integers, 18–30 for empty arrays, objects and floats, 130 per key of one object with 100,000
 * distinct keys. An answer whose parse outgrows the estimate ends the run with SCRIPT_MEMORY_LIMIT,
 * never the process (see toCrossing).
 */
export const PARSE_BYTES_PER_TOKEN = 16;

/** An upper bound of the tokens that make objects while parsing: every ",", "{" and "[", inside strings too. */
export function structuralTokens(json: string): number {
  let count = 0;
  for (const c of [',', '{', '[']) for (let at = json.indexOf(c); at !== -1; at = json.indexOf(c, at + 1)) count++;
  return count;
}

/** Bytes a string takes in V8: one a character when all of them fit in Latin-1, else two. */
export function heapBytes(s: string): number {
  // Pure ASCII is the common case, and Buffer.byteLength finds it fastest.
  if (Buffer.byteLength(s, 'utf8') === s.length || !/[^\u0000-\u00ff]/.test(s)) return s.length;
  return 2 * s.length;
}

/**
 * The bytes an isolate can still take in before its memory limit (heap in use and external memory
 * count), measured as it is, or after a full garbage collection (dead answers of earlier calls
 * count until then).
 */
export type MeasureRoom = (collect: boolean) => Promise<number>;

export function isolateRoom(isolate: IsolatedVm.Isolate, memoryLimitMb: number): MeasureRoom {
  const limit = memoryLimitMb * 1024 * 1024;
  // isolated-vm's allocator runs a full collection before it refuses an ArrayBuffer larger than
  // the room left: the one way to ask for a collection without --expose-gc. It runs in a context
  // of its own, where the script's globals cannot change what it does, and allocates nothing.
  const collect = `try { new ArrayBuffer(${2 * limit + 64 * 1024 * 1024}); } catch {}`;
  let context: IsolatedVm.Context | undefined;
  return async (afterCollecting) => {
    if (afterCollecting) {
      context ??= await isolate.createContext();
      await context.eval(collect, { timeout: 10_000 });
    }
    const heap = await isolate.getHeapStatistics();
    return limit - heap.used_heap_size - heap.externally_allocated_size;
  };
}

/**
 * Decides, before anything is copied, whether an answer fits in the isolate: it needs its own
 * bytes (the JSON text, copied as one string), what parsing it adds (PARSE_BYTES_PER_TOKEN), and
 * marginBytes, within what the isolate has free (heap statistics; after a full collection when
 * that decides). What one run holds counts: earlier answers are in the heap, and answers delivered
 * since the last measurement are added up until a quarter of the room it found is spent. Then the
 * next answer is measured, one at a time, each measurement waiting until isolated-vm has queued the
 * previous copy (the isolate runs its tasks in order).
 */
export class CrossingGate {
  readonly #room: MeasureRoom;
  readonly #limitBytes: number;
  readonly #margin: number;
  #turn: Promise<void> = Promise.resolve();
  /** Room left for answers without measuring again, and what they took of it since. */
  #budget = 0;
  #spent = 0;

  constructor(room: MeasureRoom, memoryLimitMb: number) {
    this.#room = room;
    this.#limitBytes = memoryLimitMb * 1024 * 1024;
    this.#margin = marginBytes(this.#limitBytes);
  }

  /** undefined when `envelope` may cross; else the error the call fails with instead. */
  async check(name: string, envelope: string): Promise<ErrorShape | undefined> {
    if (envelope.length < EXTERNAL_STRING_BYTES / 2) return undefined;
    const bytes = heapBytes(envelope);
    if (bytes < EXTERNAL_STRING_BYTES) return undefined;
    // As if every character made an object: no pass over the text for what is small anyway.
    const most = bytes + PARSE_BYTES_PER_TOKEN * envelope.length;
    if (this.#spent + most <= this.#budget) {
      this.#spent += most;
      return undefined;
    }
    const previous = this.#turn;
    let next!: () => void;
    this.#turn = new Promise((resolve) => (next = resolve));
    try {
      await previous;
      // Answers let through while this measures are not in it: they stay counted afterwards.
      const counted = this.#spent;
      let room = await this.#room(false);
      const need = most + this.#margin <= room ? most : bytes + PARSE_BYTES_PER_TOKEN * structuralTokens(envelope);
      if (need + this.#margin > room && need + this.#margin <= this.#limitBytes) room = await this.#room(true);
      if (need + this.#margin > room) return this.#tooLarge(name, bytes, need, room);
      this.#budget = (room - need - this.#margin) / 4;
      this.#spent -= counted;
      return undefined;
    } catch {
      return { name: 'Error', message: `tools.${name}(): the run ended before its answer could be delivered.` };
    } finally {
      // The copy is queued when the caller's promise settles, a few microtasks from here.
      setImmediate(next);
    }
  }

  #tooLarge(name: string, bytes: number, need: number, room: number): ErrorShape {
    return tooLarge(name, bytes, need + this.#margin, room, this.#limitBytes);
  }
}

function tooLarge(name: string, bytes: number, need: number, room: number, limitBytes: number): ErrorShape {
  const limitMb = limitBytes / (1024 * 1024);
  return {
    name: 'RangeError',
    message:
      `tools.${name}(): the answer is ${mb(bytes)} MB (${bytes} bytes) and would need about ${mb(need)} MB ` +
      `of this run's memory (parsed, with room to work), but the run has ${mb(Math.max(0, room))} MB of its ${limitMb} MB ` +
      'memory limit (memoryLimitMb) free. Nothing was copied into the sandbox. ' +
      'Ask for less in one call (a page, a range, a smaller file), or raise the memory limit.',
    code: RESULT_TOO_LARGE,
  };
}

/**
 * The same refusal for an answer that could not fit even in an empty isolate of `memoryLimitMb`:
 * checked where a measurement of the isolate is not at hand (serve's main thread, before an answer
 * crosses into a run worker), so no thread ever holds an answer its run could not take.
 */
export function beyondLimit(name: string, json: string, memoryLimitMb: number): ErrorShape | undefined {
  const limitBytes = memoryLimitMb * 1024 * 1024;
  const bytes = heapBytes(json);
  if (bytes < limitBytes / 4 && PARSE_BYTES_PER_TOKEN * json.length < limitBytes / 4) return undefined;
  const need = bytes + PARSE_BYTES_PER_TOKEN * structuralTokens(json) + marginBytes(limitBytes);
  return need > limitBytes ? tooLarge(name, bytes, need, limitBytes, limitBytes) : undefined;
}

function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

/**
 * What the host call Reference answers: a short envelope as a string, a longer one as an
 * ExternalCopy the sandbox copies itself, inside a synchronous call where isolated-vm catches an
 * overflow (the run then ends with SCRIPT_MEMORY_LIMIT) instead of aborting the process.
 */
export function toCrossing(ivm: Ivm, envelope: string): string | IsolatedVm.ExternalCopy<string> {
  return envelope.length < EXTERNAL_STRING_BYTES / 2 ? envelope : new ivm.ExternalCopy(envelope);
}
