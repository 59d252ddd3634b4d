// Inspecting processes through /proc (Linux), and running one with pipes.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** /proc/PID/stat fields after the command name: [state, ppid, pgrp, session, ...]; undefined if gone. */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain ') '.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** True while the process exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: it exists but belongs to someone else
  }
  const fields = statFields(pid);
  if (!fields) return !fs.existsSync('/proc/self'); // no /proc: trust kill(0)
  const state = fields[0];
  return state !== 'Z' && state !== 'X' && state !== 'x';
}

/** The process group id of pid, or undefined when it is gone. */
export function processGroupOf(pid: number): number | undefined {
  const pgrp = statFields(pid)?.[2];
  return pgrp === undefined ? undefined : Number(pgrp);
}

/** All descendants of pid (children, grandchildren, ...; zombies included), from /proc. */
export function childPidsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[1]);
    if (!Number.isInteger(ppid)) continue;
    const list = children.get(ppid);
    if (list) list.push(Number(entry));
    else children.set(ppid, [Number(entry)]);
  }
  const out: number[] = [];
  const queue = [pid];
  for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
    for (const c of children.get(p) ?? []) {
      if (c === pid || out.includes(c)) continue;
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Each chunk of stdout and when it arrived, in ms since the start. */
  readonly chunks: readonly { readonly at: number; readonly text: string }[];
  readonly ms: number;
}

export interface CliOptions {
  readonly cwd: string;
  readonly input?: string;
  /** Type the input as a person would: each piece after this many ms (a terminal needs the pause). */
  readonly typed?: readonly string[];
  readonly env?: Record<string, string>;
}

/** Runs any command with pipes, collecting its output. */
export function runProcess(command: string, args: readonly string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const chunks: { at: number; text: string }[] = [];
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      chunks.push({ at: performance.now() - started, text: d });
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, chunks, ms: performance.now() - started }));
    if (options.typed === undefined) {
      child.stdin.end(options.input ?? '');
      return;
    }
    const pieces = [...options.typed];
    const typeNext = (): void => {
      const piece = pieces.shift();
      if (piece === undefined) return;
      setTimeout(() => {
        if (!child.stdin.destroyed) child.stdin.write(piece);
        typeNext();
      }, 500);
    };
    typeNext();
    child.on('close', () => child.stdin.destroy());
  });
}

/**
 * Runs `program` (an ES module's source, which prints one JSON line and then SIGKILLs itself: a
 * parked isolate makes even process.exit() hang) in a fresh Node with isolated-vm's flag, and
 * returns that line parsed. Fails unless the program ended itself by SIGKILL.
 */
export function runSelfKilling(program: string): unknown {
  const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', program], {
    encoding: 'utf8',
    timeout: 100_000,
    env: { ...process.env, MALLOC_ARENA_MAX: '2' },
  });
  assert.equal(child.signal, 'SIGKILL', `exit ${child.status} ${child.signal}: ${child.stderr.slice(-2000)}`);
  return JSON.parse(child.stdout);
}
