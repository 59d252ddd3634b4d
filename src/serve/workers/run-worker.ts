/**
 * A run worker: a child process of serve (started by worker-process.ts, with an IPC channel) that
 * runs each script it is sent in a fresh isolate with runScript, as `host.run` would in process.
 * Its `tools.*` are stand-ins that send each call to serve and wait for the answer; progress,
 * outputs and the record go back the same way. The process holds no host, no connection and no
 * secret: only isolates (its runs', and a few made ahead of them). It is a place serve can throw
 * away: after a run it reports its memory (`health`), and serve retires it when an isolate was
 * parked or its memory stayed high. It ends itself when serve goes (the channel closes).
 */
import { writeFileSync } from 'node:fs';
import {
  DEFAULT_MEMORY_LIMIT_MB,
  IsolatePool,
  parkedIsolates,
  runScript,
  shapeHostError,
  StateValues,
  type ErrorShape,
  type HostCallContext,
  type HostFunction,
  type HostProgress,
  type RunScriptOptions,
} from '../../runtime/index.js';
import type { FromWorker, RunEvent, ToWorker } from './worker-protocol.js';

interface PendingCall {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly onProgress: (p: HostProgress) => void;
}

interface WorkerRun {
  readonly abort: AbortController;
  readonly calls: Map<number, PendingCall>;
  readonly memoryLimitMb: number;
  nextCall: number;
  /** Events not sent yet: a script printing in a loop makes one message per turn, not one per text(). */
  events: RunEvent[];
}

/** After a run, how long its isolate has to be disposed and its memory returned before RSS is read. */
const HEALTH_DELAY_MS = 150;

const runs = new Map<number, WorkerRun>();
// This process's own warm sandboxes: made ahead, and refilled, here.
const warm = new IsolatePool();
const send = (message: FromWorker): void => {
  if (process.connected) process.send!(message);
};
let healthTimer: NodeJS.Timeout | undefined;
let parkedReported = 0;

// The kernel's out-of-memory killer takes a worker before serve (Linux; raising one's own score needs no privilege).
try {
  writeFileSync('/proc/self/oom_score_adj', '1000');
} catch {
  // Not Linux, or /proc is read-only: serve's ceiling still retires a worker that grew.
}
// A terminal's Ctrl-C reaches the whole process group: serve decides when its workers end.
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
// serve is gone (even by SIGKILL): nothing here is worth saving, and a parked isolate would block a normal exit.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));

process.on('message', (message: ToWorker) => {
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
reportHealth();

async function start(message: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  const { id, hooks } = message;
  const run: WorkerRun = {
    abort: new AbortController(),
    calls: new Map(),
    memoryLimitMb: message.limits.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB,
    nextCall: 0,
    events: [],
  };
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
  for (const fn of message.names) functions[fn] = (args, context) => callServe(id, run, fn, args, context);
  // A copy of serve's state: what the run changes goes back with its record.
  const state = message.state === undefined ? undefined : StateValues.fromSnapshot(message.state);
  const options: RunScriptOptions = {
    ...message.limits,
    functions,
    ...(state === undefined ? {} : { state }),
    signal: run.abort.signal,
    ...(hooks.progress ? { onProgress: (progress) => report({ type: 'progress', progress }) } : {}),
    ...(hooks.output ? { onOutput: (entry) => report({ type: 'output', entry }) } : {}),
    ...(hooks.callEnd ? { onCallEnd: (call) => report({ type: 'call-end', call }) } : {}),
  };
  try {
    const record = await runScript(message.code, options, warm);
    flush();
    send({ type: 'done', id, record, ...(state === undefined ? {} : { changes: state.takeChanges() }) });
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
    // A parked isolate is said at once: its memory will never come back, so nothing is gained by waiting.
    if (parkedIsolates() > parkedReported) reportHealth();
    else healthTimer ??= setTimeout(reportHealth, HEALTH_DELAY_MS);
  }
}

/** Resident memory, parked isolates and the runs still executing, for serve's decision to retire this process. */
function reportHealth(): void {
  clearTimeout(healthTimer);
  healthTimer = undefined;
  parkedReported = parkedIsolates();
  send({ type: 'health', rss: process.memoryUsage.rss(), parked: parkedReported, runningMb: [...runs.values()].map((r) => r.memoryLimitMb) });
}

/** One `tools.<fn>(args)`: made by serve's host; its abort and progress cross too. */
function callServe(id: number, run: WorkerRun, fn: string, args: unknown, context: HostCallContext): Promise<unknown> {
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
