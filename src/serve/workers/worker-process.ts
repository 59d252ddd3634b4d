/**
 * One run worker's process, as serve starts it (the pool is worker-pool.ts, its main run-worker.ts),
 * and the rule by which serve retires it: a parked isolate, or resident memory past a ceiling
 * derived from the memory limits of the runs still in it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { WorkerHealth } from './worker-protocol.js';

const MB = 1024 * 1024;

/** What a worker may keep above its resident memory at start once its runs are over: V8's code, caches and malloc's free lists. */
export const RETAINED_ALLOWANCE_MB = 64;
/** What each run still executing may hold: its heap limit, and as much again outside it (isolate, buffers, malloc). */
export const PER_RUN_FACTOR = 2;

/**
 * Starts a worker process with an IPC channel. It gets no environment but what Node and malloc read
 * (no token or secret is ever in it), and Node's flags for isolated-vm only: not serve's own (a
 * profiler or inspector of serve stays serve's).
 */
export function spawnWorker(moduleUrl: URL): ChildProcess {
  const env: Record<string, string> = { MALLOC_ARENA_MAX: process.env['MALLOC_ARENA_MAX'] ?? '2' };
  const nodeOptions = process.env['NODE_OPTIONS'];
  if (nodeOptions !== undefined) env['NODE_OPTIONS'] = nodeOptions;
  return fork(fileURLToPath(moduleUrl), [], {
    execArgv: ['--no-node-snapshot'],
    env,
    // Structured clone: a call's answer (JSON text) crosses as one string, not escaped again as JSON.
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
}

/** Bytes of a worker's stderr kept, to say why it died (V8 prints its fatal errors there). */
const STDERR_TAIL_BYTES = 2048;

/** Drains a worker's stderr, keeping its tail; returns the tail's last line. Reading never keeps serve alive. */
export function stderrTail(child: ChildProcess): () => string {
  let tail = '';
  const stream = child.stderr;
  if (stream === null) return () => '';
  (stream as Socket).unref?.();
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  stream.on('error', () => {});
  return () => tail.trim().split('\n').pop()?.slice(0, 300) ?? '';
}

/**
 * The resident memory past which a worker is retired, in bytes: its memory at start, plus
 * RETAINED_ALLOWANCE_MB, plus PER_RUN_FACTOR × `--memory` for each run still executing in it.
 */
export function ceilingBytes(startRss: number, runningMb: readonly number[]): number {
  let ceiling = startRss + RETAINED_ALLOWANCE_MB * MB;
  for (const mb of runningMb) ceiling += PER_RUN_FACTOR * mb * MB;
  return ceiling;
}

/** Why a worker must go, from its latest report: 'parked' (now), 'memory' (once its runs end), or undefined. */
export function retirement(health: WorkerHealth, startRss: number): { readonly now: boolean; readonly why: string } | undefined {
  if (health.parked > 0) {
    return {
      now: true,
      why: 'a script in it ran out of memory in a way V8 cannot recover from (its isolate is parked and holds its memory until the process ends)',
    };
  }
  const ceiling = ceilingBytes(startRss, health.runningMb);
  if (health.rss <= ceiling) return undefined;
  return { now: false, why: `its resident memory (${Math.round(health.rss / MB)} MB) passed its ceiling (${Math.round(ceiling / MB)} MB) after a run` };
}
