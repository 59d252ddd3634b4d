/** What the berry-mcp command does once bin.ts has turned the compile cache on. */
import { constants } from 'node:os';
import { nodeChildProcess } from '../common/lazy-node.js';
import type { Readable } from 'node:stream';
import { main } from './main.js';
import { PARENT_FD_ENV, watchParent } from './parent-watch.js';
import { parkedIsolates } from '../runtime/parked.js';

const argv = process.argv.slice(2);
const hasSnapshotFlag = process.execArgv.includes('--no-node-snapshot') || (process.env['NODE_OPTIONS'] ?? '').includes('--no-node-snapshot');

// isolated-vm needs Node started with --no-node-snapshot; only `run` and `serve` use it, so only they pay
// the re-exec (bin/berry-mcp, the installed command, starts Node with the flag itself). Options may
// come before the command (`--config x run -`), as bin/berry-mcp also assumes.
if ((argv.includes('run') || argv.includes('serve')) && !hasSnapshotFlag) {
  // fd 3 is a pipe this process holds open: its end tells the child that we are gone, even by SIGKILL.
  // Few malloc arenas: each isolate thread would otherwise keep its own, and RSS stays tens of MB
  // above what a run used (measured: 55 → 20 MB after 22 memory-limited runs).
  const child = nodeChildProcess().spawn(process.execPath, ['--no-node-snapshot', ...process.execArgv, process.argv[1]!, ...argv], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { MALLOC_ARENA_MAX: '2', ...process.env, [PARENT_FD_ENV]: '3' },
  });
  // The child reports its exit status here before it may have to end itself by SIGKILL.
  let reported: number | undefined;
  const link = child.stdio[3] as Readable | null;
  link?.on('data', (chunk: Buffer) => {
    if (chunk.length > 0) reported = chunk[chunk.length - 1];
  });
  link?.on('error', () => {});
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  child.on('close', (code, signal) => {
    process.exitCode = code ?? reported ?? (signal ? 128 + (constants.signals[signal] ?? 2) : 1);
  });
} else {
  // A parent gone, a closed terminal (SIGHUP) or a reader gone (EPIPE) is a SIGTERM: the run
  // aborts, its calls are cancelled and its servers stopped, instead of dying and leaving them.
  const terminate = (): void => void process.emit('SIGTERM', 'SIGTERM');
  const parent = watchParent(terminate);
  process.on('SIGHUP', terminate);
  process.stdout.on('error', terminate);
  process.stderr.on('error', terminate);
  main(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then(
    (code) => {
      process.exitCode = code;
      parent.reportExitCode(code);
      // An isolate that ran out of memory catastrophically stays parked on its thread, and then
      // even process.exit() hangs: once the work is done and the output written, end for sure.
      if (parkedIsolates() > 0) setTimeout(() => process.kill(process.pid, 'SIGKILL'), 500).unref();
    },
    (error: unknown) => {
      process.stderr.write(`berry-mcp: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
