#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { main } from './cli/main.js';

const argv = process.argv.slice(2);
const hasSnapshotFlag =
  process.execArgv.includes('--no-node-snapshot') || (process.env['NODE_OPTIONS'] ?? '').includes('--no-node-snapshot');

// isolated-vm needs Node started with --no-node-snapshot; only `run` uses it, so only it pays the re-exec.
// Options may come before the command (`--config x run -`), as bin/berry-mcp also assumes.
if (argv.includes('run') && !hasSnapshotFlag) {
  const child = spawn(process.execPath, ['--no-node-snapshot', ...process.execArgv, process.argv[1]!, ...argv], {
    stdio: 'inherit',
  });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + 2 : 1);
  });
} else {
  main(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`berry-mcp: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
