// The memory of a process and the processes of a serve (Linux /proc): serve's own process, found
// under the launcher bin/berry-mcp re-executes, and its run workers.
import { readFileSync } from 'node:fs';
import { childPidsOf, processAlive } from './processes.js';

const MB = 1024 * 1024;

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? (Number(match[1]) * 1024) / MB : undefined;
  } catch {
    return undefined;
  }
}

/** Resident memory now, in MB (undefined once the process is gone). */
export function rssMb(pid: number): number | undefined {
  return statusField(pid, 'VmRSS');
}

/** The highest resident memory since the process started, in MB. */
export function peakMb(pid: number): number | undefined {
  return statusField(pid, 'VmHWM');
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** serve's own process under the launcher `node dist/src/bin.js serve …` (the re-executed Node with --no-node-snapshot). */
export function servePidOf(launcher: number): number {
  const pid = childPidsOf(launcher).find((p) => /--no-node-snapshot .*bin\.js serve/.test(commandLine(p)));
  if (pid === undefined) throw new Error(`no serve process under ${launcher}`);
  return pid;
}

/** serve's run workers that are alive now. */
export function workerPidsOf(serve: number): number[] {
  return childPidsOf(serve).filter((p) => processAlive(p) && commandLine(p).includes('run-worker.js'));
}
