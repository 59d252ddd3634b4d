/**
 * `berry-mcp serve --http 127.0.0.1:0` as a child process for the load sections (17, 24): started
 * from dist/ with --no-node-snapshot (optionally under --cpu-prof), answered once it prints its
 * address, stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../test/support/paths.js';
import { NODE } from './fixtures.js';

const BIN = join(PROJECT_ROOT, 'dist/src/bin.js');

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export interface ServeProcessOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Puts serve under `--cpu-prof`, its profile written here. */
  readonly profileDir?: string | undefined;
}

/** Starts serve with `args` after `serve --http 127.0.0.1:0`; rejects when it exits or is silent for 30 s. */
export async function startServeProcess(args: readonly string[], options: ServeProcessOptions): Promise<ServeProcess> {
  const flags = ['--no-node-snapshot', ...(options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', options.profileDir] : [])];
  const child = spawn(NODE, [...flags, BIN, 'serve', '--http', '127.0.0.1:0', ...args], {
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4096);
      const match = /listening on (\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
