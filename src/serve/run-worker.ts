/**
 * A run worker's thread (started by worker-pool.ts): runs each script it is sent in a fresh
 * isolate with runScript, as `host.run` would on the main thread. Its `tools.*` are stand-ins that
 * send each call to the main thread and wait for the answer; progress, outputs and the record go
 * back the same way. The thread holds no host, no connection and no secret: only isolates (its
 * runs', and a few made ahead of them: the runtime's warm pool, one per worker).
 */
import { parentPort } from 'node:worker_threads';
import { IsolatePool, runScript, shapeHostError, type ErrorShape, type HostCallContext, type HostFunction, type HostProgress, type RunScriptOptions } from '../runtime/index.js';
import type { FromWorker, RunEvent, ToWorker } from './worker-protocol.js';

interface PendingCall {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly onProgress: (p: HostProgress) => void;
}

interface WorkerRun {
  readonly abort: AbortController;
  readonly calls: Map<number, PendingCall>;
  nextCall: number;
  /** Events not sent yet: a script printing in a loop makes one message per turn, not one per text(). */
  events: RunEvent[];
}

const port = parentPort!;
const runs = new Map<number, WorkerRun>();
// This thread's own warm sandboxes: made ahead, and refilled, here, off the main thread.
const warm = new IsolatePool();
const send = (message: FromWorker): void => port.postMessage(message);

port.on('message', (message: ToWorker) => {
  if (message.type === 'run') {
    void start(message);
    return;
  }
  const run = runs.get(message.id);
  if (!run) return;
  if (message.type === 'abort') {
    run.abort.abort();
    return;
  }
  const call = run.calls.get(message.call);
  if (!call) return;
  if (message.type === 'call-progress') {
    call.onProgress(message.progress);
    return;
  }
  run.calls.delete(message.call);
  if (message.error) call.reject(crossingError(message.error));
  else call.resolve(message.json === undefined ? undefined : JSON.parse(message.json));
});

async function start(message: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const { id, hooks } = message;
  const run: WorkerRun = { abort: new AbortController(), calls: new Map(), nextCall: 0, events: [] };
  const flush = (): void => {
    if (run.events.length === 0) return;
    send({ type: 'events', id, events: run.events });
    run.events = [];
  };
  const report = (event: RunEvent): void => {
    if (run.events.push(event) === 1) setImmediate(flush);
  };
  runs.set(id, run);
  const functions: Record<string, HostFunction> = {};
  for (const fn of message.names) functions[fn] = (args, context) => callMain(id, run, fn, args, context);
  const options: RunScriptOptions = {
    ...message.limits,
    functions,
    signal: run.abort.signal,
    ...(hooks.progress ? { onProgress: (progress) => report({ type: 'progress', progress }) } : {}),
    ...(hooks.output ? { onOutput: (entry) => report({ type: 'output', entry }) } : {}),
    ...(hooks.callEnd ? { onCallEnd: (call) => report({ type: 'call-end', call }) } : {}),
  };
  try {
    const record = await runScript(message.code, options, warm);
    flush();
    send({ type: 'done', id, record });
  } catch (error) {
    flush();
    const { name, message: text, code } = error as { name?: unknown; message?: unknown; code?: unknown };
    send({
      type: 'failed',
      id,
      error: { name: String(name ?? 'Error'), message: String(text ?? error), ...(typeof code === 'string' ? { code } : {}) },
    });
  } finally {
    runs.delete(id);
  }
}

/** One `tools.<fn>(args)`: made by the main thread's host; its abort and progress cross too. */
function callMain(id: number, run: WorkerRun, fn: string, args: unknown, context: HostCallContext): Promise<unknown> {
  const call = ++run.nextCall;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => send({ type: 'call-abort', id, call, reason: shapeHostError(context.signal.reason) });
    context.signal.addEventListener('abort', onAbort, { once: true });
    const settle = { resolve, reject };
    run.calls.set(call, {
      resolve: (value) => {
        context.signal.removeEventListener('abort', onAbort);
        settle.resolve(value);
      },
      reject: (error) => {
        context.signal.removeEventListener('abort', onAbort);
        settle.reject(error);
      },
      onProgress: context.onProgress,
    });
    send({ type: 'call', id, call, fn, args });
  });
}

/** The runtime reads name, message and code of what a host function throws: rebuild just those. */
function crossingError(shape: ErrorShape): Error {
  const error = new Error(shape.message);
  Object.defineProperty(error, 'name', { value: shape.name });
  if (shape.code !== undefined) Object.defineProperty(error, 'code', { value: shape.code, enumerable: true });
  return error;
}
