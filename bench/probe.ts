/**
 * Runs a section's own module again as `--probe` in a fresh Node process (its memory and file
 * descriptors are then the measurement's alone) and takes the last stdout line as its JSON result.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE } from './fixtures.js';

export function runProbe<T>(
  moduleUrl: string,
  options: { readonly name: string; readonly timeoutMs: number; readonly onStderrLine?: (line: string) => void },
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['--no-node-snapshot', '--expose-gc', fileURLToPath(moduleUrl), '--probe'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4096);
      if (options.onStderrLine) for (const line of d.split('\n')) options.onStderrLine(line);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`${options.name} exited ${code}: ${stderr.trim().split('\n').pop() ?? ''}`);
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as T);
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** True in the probe process that runProbe started for `moduleUrl`. */
function isProbe(moduleUrl: string): boolean {
  return process.argv.includes('--probe') && process.argv[1] === fileURLToPath(moduleUrl);
}

/** In the probe process that runProbe started for `moduleUrl`: runs `probe`, then exits 0, or 1 with its stack on stderr. */
export function probeEntry(moduleUrl: string, probe: () => Promise<void>): void {
  if (!isProbe(moduleUrl)) return;
  probe().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
