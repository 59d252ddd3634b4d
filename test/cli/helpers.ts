import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../fixtures/servers.js';

/** The `berry-mcp` command as npm links it (node_modules/.bin/berry-mcp → bin/berry-mcp). */
export const LAUNCHER = join(PROJECT_ROOT, 'bin', 'berry-mcp');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Each chunk of stdout and when it arrived, in ms since the start. */
  readonly chunks: readonly { readonly at: number; readonly text: string }[];
  readonly ms: number;
}

interface CliOptions {
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

/** Runs `berry-mcp ARGS…` through the launcher, with pipes for stdin, stdout and stderr. */
export function berry(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return runProcess(LAUNCHER, args, options);
}

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs `berry-mcp ARGS…` on a pseudo-terminal (util-linux `script`): stdout and stderr both arrive as stdout. */
export function berryOnTty(args: readonly string[], options: CliOptions): Promise<CliResult> {
  const command = [LAUNCHER, ...args].map(quote).join(' ');
  return runProcess('script', ['-qfec', command, '/dev/null'], options);
}
