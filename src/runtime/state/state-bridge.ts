/**
 * The host side of `store(key, value)` and `load(key)`: one synchronous Callback, `stateCall(op,
 * key, json)`, that the bootstrap's state fragment (bootstrap/state-source.ts) calls. It answers
 * with a tagged string: `=` and a value's JSON, `!` and an error's JSON ({ name, message, code }),
 * `~` (collect garbage, then ask again), or undefined (done; no such key). Nothing it throws ever
 * reaches the isolate: no host stack crosses.
 */
import type IsolatedVm from 'isolated-vm';
import { heapBytes, marginBytes, PARSE_BYTES_PER_TOKEN, structuralTokens } from '../crossing.js';
import { shapeHostError } from '../bridge.js';
import type { ErrorShape } from '../types.js';
import type { StateValues } from './run-state.js';

const LIMIT_CODE = 'SCRIPT_STATE_LIMIT';
/** Shorter answers need no measurement: the isolate's margin covers them (as CrossingGate's). */
const SMALL_CHARS = 512;

/** The bytes the run's isolate has free now (heap in use and external memory count). */
export type RoomNow = () => number;

export function isolateRoomNow(isolate: IsolatedVm.Isolate, memoryLimitMb: number): RoomNow {
  const limit = memoryLimitMb * 1024 * 1024;
  return () => {
    const heap = isolate.getHeapStatisticsSync();
    return limit - heap.used_heap_size - heap.externally_allocated_size;
  };
}

/** One run's access to its state; closed when the run ends, so a callback left behind changes nothing after its record. */
export class StateBridge {
  readonly #state: StateValues;
  readonly #room: RoomNow;
  readonly #limitBytes: number;
  #closed = false;

  constructor(state: StateValues, room: RoomNow, memoryLimitMb: number) {
    this.#state = state;
    this.#room = room;
    this.#limitBytes = memoryLimitMb * 1024 * 1024;
  }

  close(): void {
    this.#closed = true;
  }

  /** The Callback's body: never throws. */
  readonly handle = (op: unknown, key: unknown, json: unknown): string | undefined => {
    try {
      if (this.#closed) return failure({ name: 'Error', message: `${String(op)}(): the run has ended; its state takes no more changes.` });
      if (op === 'limits') return `=${JSON.stringify([this.#state.limits.maxValueBytes, this.#state.limits.maxKeyChars])}`;
      if (typeof key !== 'string') return failure({ name: 'TypeError', message: `${String(op)}(key): the key must be a string` });
      if (op === 'store' && typeof json === 'string') {
        this.#state.setText(key, json);
        return undefined;
      }
      if (op === 'delete') {
        this.#state.delete(key);
        return undefined;
      }
      if (op === 'load' || op === 'load-again') return this.#load(key, op === 'load-again');
      return failure({ name: 'TypeError', message: `unknown state operation ${String(op)}` });
    } catch (error) {
      const shape = shapeHostError(error);
      // A bound is a RangeError in the script, as the sandbox's other limits are.
      return failure(shape.code === LIMIT_CODE ? { ...shape, name: 'RangeError' } : shape);
    }
  };

  /**
   * The value's JSON when the isolate has room to take and parse it (measured now, before any
   * copy: the same estimate as a tool's answer, crossing.ts); `~` once when only a collection could
   * make room; else SCRIPT_STATE_LIMIT, nothing copied.
   */
  #load(key: string, collected: boolean): string | undefined {
    const json = this.#state.getText(key);
    if (json === undefined) return undefined;
    if (json.length < SMALL_CHARS) return `=${json}`;
    const bytes = heapBytes(json);
    const need = bytes + PARSE_BYTES_PER_TOKEN * structuralTokens(json) + marginBytes(this.#limitBytes);
    const room = this.#room();
    if (need <= room) return `=${json}`;
    if (!collected && need <= this.#limitBytes) return '~';
    const mb = (n: number): string => (n / (1024 * 1024)).toFixed(1);
    return failure({
      name: 'RangeError',
      code: LIMIT_CODE,
      message:
        `load("${JSON.stringify(key.slice(0, 40)).slice(1, -1)}"): the value is ${mb(bytes)} MB (${bytes} bytes) and would need about ${mb(need)} MB of this ` +
        `run's memory (parsed, with room to work), but the run has ${mb(Math.max(0, room))} MB of its ${mb(this.#limitBytes)} MB memory limit ` +
        'free. Nothing was copied into the sandbox: drop what you no longer need first, or raise the memory limit.',
    });
  }
}

function failure(shape: ErrorShape): string {
  return `!${JSON.stringify(shape)}`;
}
