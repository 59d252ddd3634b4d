import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** One row of the process table, read from /proc. */
export interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly uid: number;
  readonly comm: string;
  /** argv joined by spaces ('' for kernel threads). */
  readonly cmdline: string;
  /** argv bytes exactly as read (NUL-separated), for secret scanning. */
  readonly rawCmdline: string;
}

export function processTable(): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // comm may contain spaces and parentheses: fields resume after the last ')'.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      const status = readFileSync(`/proc/${name}/status`, 'latin1');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1);
      const rawCmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1');
      rows.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        uid,
        comm,
        cmdline: rawCmdline.replace(/\0+$/, '').replace(/\0/g, ' '),
        rawCmdline,
      });
    } catch {
      // The process exited while we were reading.
    }
  }
  return rows;
}

/** All descendants of `pid` (not `pid` itself), parents before children. */
export function descendants(pid: number, table: readonly ProcessRow[] = processTable()): ProcessRow[] {
  const out: ProcessRow[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const row of table) {
      if (row.ppid === parent) {
        out.push(row);
        queue.push(row.pid);
      }
    }
  }
  return out;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'latin1'));
  } catch {
    return false;
  }
}

/** The network namespace of a process, e.g. `net:[4026531840]`. */
export function netnsOf(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}

/** Pids holding a TCP socket whose local or remote end is 127.0.0.1:`port` (IPv4, this namespace). */
export function tcpSocketOwners(port: number, side: 'local' | 'remote'): number[] {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'latin1').split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    const address = side === 'local' ? cols[1] : cols[2];
    if (address === `0100007F:${hexPort}` && cols[9]) inodes.add(cols[9]);
  }
  const owners: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      for (const fd of readdirSync(`/proc/${name}/fd`)) {
        const target = readlinkSync(`/proc/${name}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode && inodes.has(inode)) owners.push(Number(name));
      }
    } catch {
      // Gone, or not ours to read.
    }
  }
  return [...new Set(owners)];
}

/** Sends `signal` to each pid, one by one, ignoring those already gone. */
export function killPids(pids: Iterable<number>, signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}
