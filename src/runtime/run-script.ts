import { Buffer } from 'node:buffer';
import type IsolatedVm from 'isolated-vm';
import { BerryError } from '../common/errors.js';
import { ARGUMENT_REFUSED, HostBridge } from './bridge.js';
import { CrossingGate, isolateRoom } from './crossing.js';
import { MAX_JSON_DEPTH as MAX_RESULT_DEPTH, nestedDeeperThan } from './json-depth.js';
import { loadIsolatedVm, type Ivm } from './load-ivm.js';
import { checkNodeFlags, nativesSyntaxEnabled } from './node-flags.js';
import { normalizeRunOptions, type NormalizedRunOptions } from './options.js';
import { OutputCollector } from './outputs.js';
import { compileUserScript, installSandbox, isFunctionBody } from './sandbox.js';
import { compileError, limitError, resultTooDeep, resultTooLarge, setupFailed, thrownError, unexpectedEnd, type LimitCode } from './run-errors.js';
import type { RunError, RunRecord, RunScriptOptions } from './types.js';
import { createIsolate, disposeQuietly, type Catastrophe, type IsolatePool, type Sandbox, type SandboxSpec } from './warm-pool.js';
import type { BootstrapConfig } from './bootstrap/bootstrap.js';

type Outcome =
  | { readonly ok: true; readonly hasResult: boolean; readonly result?: unknown }
  /** limit: set when the runtime ended the run itself, as opposed to the script failing. */
  | { readonly ok: false; readonly error: RunError; readonly limit?: LimitCode };

/** Everything one run needs, created per run and dropped with it. */
interface Run {
  readonly ivm: Ivm;
  readonly isolate: IsolatedVm.Isolate;
  /** Taken from the warm pool (its context set up already), or made for this run. */
  readonly sandbox: Sandbox;
  readonly spec: SandboxSpec;
  readonly options: NormalizedRunOptions;
  readonly bridge: HostBridge;
  readonly outputs: OutputCollector;
  readonly deadline: number;
  /** 'setup' until the script's own code starts running. */
  phase: 'setup' | 'script';
}

const IVM_TIMEOUT_SLACK_MS = 50;

let nodeFlagsChecked = false;

/**
 * Runs `code` as the body of an async function in a fresh isolate: one taken from `warmPool` when
 * it has one made for this run's limits, else one made now. Never rejects for anything the script
 * does; rejects only for bad options (TypeError) or a missing runtime (BerryError SCRIPT_SETUP_FAILED).
 */
export async function runScript(code: string, options: RunScriptOptions, warmPool?: IsolatePool): Promise<RunRecord> {
  if (typeof code !== 'string') throw new TypeError(`runScript code must be a string, got ${typeof code}`);
  const normalized = normalizeRunOptions(options);
  if (!nodeFlagsChecked) {
    checkNodeFlags();
    nodeFlagsChecked = true;
  }
  if (nativesSyntaxEnabled()) {
    throw new BerryError(
      'SCRIPT_SETUP_FAILED',
      'Refusing to run scripts while V8 parses %-natives syntax (--allow-natives-syntax, maybe set by v8.setFlagsFromString): ' +
        'sandboxed code would get V8 intrinsics. Turn the flag off.',
    );
  }
  const ivm = await loadIsolatedVm();
  const started = performance.now();
  const outputs = new OutputCollector(normalized.outputLimitBytes, normalized.onOutput);
  if (normalized.signal?.aborted) return toRecord(limitOutcome('SCRIPT_ABORTED', normalized), outputs, 0, performance.now() - started);
  const spec: SandboxSpec = { memoryLimitMb: normalized.memoryLimitMb, config: bootstrapConfig(normalized) };
  const sandbox = warmPool?.take(ivm, spec) ?? createIsolate(ivm, normalized.memoryLimitMb);
  const { isolate, catastrophe } = sandbox;
  const bridge = new HostBridge(normalized.functions, {
    onProgress: normalized.onProgress,
    onCallEnd: normalized.onCallEnd,
    maxArgumentBytes: normalized.maxArgumentBytes,
    gate: new CrossingGate(isolateRoom(isolate, normalized.memoryLimitMb), normalized.memoryLimitMb),
  });
  sandbox.target.bridge = bridge;
  sandbox.target.outputs = outputs;
  const run: Run = { ivm, isolate, sandbox, spec, options: normalized, bridge, outputs, deadline: started + normalized.timeoutMs, phase: 'setup' };
  let outcome: Outcome;
  try {
    outcome = await supervise(run, code, catastrophe);
  } finally {
    // After the run, off its path: the next run finds one warm.
    warmPool?.refill();
  }
  return toRecord(outcome, outputs, bridge.calls, performance.now() - started);
}

/** Ends the run at the first of: the script settles, the deadline, the caller's abort, the memory limit. */
async function supervise(run: Run, code: string, catastrophe: Catastrophe): Promise<Outcome> {
  const { isolate, options, bridge, outputs } = run;
  let outcome: Outcome | undefined;
  let settle!: (value: Outcome) => void;
  const settled = new Promise<Outcome>((resolve) => (settle = resolve));
  const end = (value: Outcome): void => {
    if (outcome !== undefined) return;
    outcome = value;
    settle(value);
  };
  // Disposing is what stops a script busy after an await, or waiting forever.
  const stop = (code: LimitCode): void => {
    end(limitOutcome(isolate.isDisposed ? 'SCRIPT_MEMORY_LIMIT' : code, options));
    disposeQuietly(isolate);
  };
  catastrophe.onCatastrophe = () => stop('SCRIPT_MEMORY_LIMIT');
  const onAbort = (): void => stop('SCRIPT_ABORTED');
  // A plain timer: ending an aborted timers/promises sleep builds two AbortErrors with stacks, every run.
  const deadline = setTimeout(() => stop('SCRIPT_TIMEOUT'), msUntil(run.deadline));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    execute(run, code).then(end, (error: unknown) => end(classify(run, error)));
    return await settled;
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onAbort);
    outputs.seal();
    bridge.close(() => callEndReason(outcome));
    catastrophe.onCatastrophe = undefined;
    // The script has settled: its isolate's teardown (≈ 0.2 ms, more when cold) waits until the
    // record is on its way. A callback the script left behind finds the run closed, and the
    // dispose ends it. A stopped run's isolate was disposed by stop() already.
    if (!isolate.isDisposed) setImmediate(disposeQuietly, isolate);
  }
}

async function execute(run: Run, code: string): Promise<Outcome> {
  const { ivm, isolate, options } = run;
  let script: IsolatedVm.Script;
  try {
    // TypeScript only when it is not JavaScript: a JavaScript run never loads the type stripper.
    script = isFunctionBody(code)
      ? compileUserScript(isolate, code, options.filename, true)
      : (await import('./typescript/compile-typescript.js')).compileTypeScript(isolate, code, options.filename);
  } catch (error) {
    if (isolate.isDisposed) throw error;
    return { ok: false, error: compileError(error, options.filename, code) };
  }
  const context = run.sandbox.context ?? installSandbox(ivm, isolate, run.sandbox.target, run.spec.config);
  run.phase = 'script';
  // Asynchronous, so the host stays free and the wall-clock timer can fire. isolated-vm's own
  // timeout is the backstop for a host too busy to run that timer: a little later, so that the
  // timer normally wins and classify() can tell a timeout by the clock.
  const reply: unknown = await script.run(context, { timeout: msUntil(run.deadline) + IVM_TIMEOUT_SLACK_MS, promise: true });
  return fromReply(reply, options);
}

/** What the bootstrap needs of a run's options: a pooled sandbox is made for exactly these. */
function bootstrapConfig(options: NormalizedRunOptions): BootstrapConfig {
  return {
    names: options.names,
    remaining: options.outputLimitBytes,
    resultLimit: options.outputLimitBytes,
    argumentLimit: options.maxArgumentBytes,
    argumentCode: ARGUMENT_REFUSED,
    maxCalls: options.maxConcurrentCalls,
    fillLimit: Math.floor((options.memoryLimitMb * 1024 * 1024) / 8),
    flatLimit: options.memoryLimitMb * 1024 * 1024,
  };
}

function fromReply(reply: unknown, options: NormalizedRunOptions): Outcome {
  // Anything else comes from code that closed the wrapper early.
  if (typeof reply !== 'string' || !'=>!'.includes(reply.charAt(0)) || reply === '') return { ok: false, error: unexpectedEnd() };
  const tag = reply[0];
  if (tag === '>') return { ok: false, error: resultTooLarge(options.outputLimitBytes) };
  if (tag === '=' && reply.length === 1) return { ok: true, hasResult: false };
  if (tag === '=' && Buffer.byteLength(reply, 'utf8') - 1 > options.outputLimitBytes) {
    return { ok: false, error: resultTooLarge(options.outputLimitBytes) };
  }
  // The host must be able to print the record: V8's JSON.stringify recurses and would overflow.
  if (tag === '=' && nestedDeeperThan(reply, MAX_RESULT_DEPTH)) return { ok: false, error: resultTooDeep(MAX_RESULT_DEPTH) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.slice(1));
  } catch {
    return { ok: false, error: unexpectedEnd() };
  }
  if (tag === '=') return { ok: true, hasResult: true, result: parsed };
  if (typeof parsed !== 'object' || parsed === null) return { ok: false, error: unexpectedEnd() };
  if (isAllocationFailure(parsed)) return limitOutcome('SCRIPT_MEMORY_LIMIT', options);
  return { ok: false, error: thrownError(parsed, options.filename) };
}

/** Why execute() rejected: isolated-vm errors carry no codes, so decide from the isolate's state. */
function classify(run: Run, error: unknown): Outcome {
  const { isolate, options } = run;
  if (isolate.isDisposed) return limitOutcome('SCRIPT_MEMORY_LIMIT', options);
  // isolated-vm's own `timeout` fired: it is set past the deadline.
  if (performance.now() >= run.deadline) return limitOutcome('SCRIPT_TIMEOUT', options);
  if (run.phase === 'setup') return { ok: false, error: setupFailed(messageOf(error)) };
  // A rejection the script left unhandled surfaces here as the isolate's own error.
  const e = error as { name?: unknown; message?: unknown; stack?: unknown };
  const stack = typeof e?.stack === 'string' ? e.stack : '';
  const at = stack.indexOf('\n    at ');
  const shape = { name: e?.name, message: e?.message ?? String(error), frames: at < 0 ? undefined : stack.slice(at) };
  if (isAllocationFailure(shape)) return limitOutcome('SCRIPT_MEMORY_LIMIT', options);
  return { ok: false, error: thrownError(shape, options.filename) };
}

/**
 * isolated-vm's buffer allocator enforces the memory limit on ArrayBuffers by failing the
 * allocation: left uncaught, that is the memory limit ending the run.
 */
function isAllocationFailure(shape: { name?: unknown; message?: unknown }): boolean {
  return shape.name === 'RangeError' && shape.message === 'Array buffer allocation failed';
}

/** The abort reason of host calls still running when the run ends. */
function callEndReason(outcome: Outcome | undefined): Error {
  if (outcome?.ok === false && outcome.limit !== undefined) return new BerryError(outcome.limit, outcome.error.message);
  return new BerryError('SCRIPT_ABORTED', 'The script run ended before this call finished.');
}

function limitOutcome(code: LimitCode, limits: NormalizedRunOptions): Outcome {
  return { ok: false, error: limitError(code, limits), limit: code };
}

function toRecord(outcome: Outcome, outputs: OutputCollector, calls: number, elapsedMs: number): RunRecord {
  const durationMs = Math.round(elapsedMs * 1000) / 1000;
  if (!outcome.ok) return { ok: false, outputs: outputs.outputs, logs: outputs.logs, error: outcome.error, durationMs, calls };
  if (!outcome.hasResult) return { ok: true, outputs: outputs.outputs, logs: outputs.logs, durationMs, calls };
  return { ok: true, result: outcome.result, outputs: outputs.outputs, logs: outputs.logs, durationMs, calls };
}

function msUntil(deadline: number): number {
  return Math.max(1, Math.ceil(deadline - performance.now()));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
