import { execFile } from 'node:child_process';

/** Runs a program to completion; rejects with its stderr when it fails. */
export function run(file: string, args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { timeout: options.timeoutMs ?? 20_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${file} ${args.join(' ')} failed: ${stderr.trim() || error.message}`, { cause: error }));
      } else {
        resolve(stdout);
      }
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** True when `file` runs (exit status ignored), false when it cannot be found. */
export async function hasProgram(file: string, args: readonly string[] = ['-V']): Promise<boolean> {
  try {
    await run(file, args);
    return true;
  } catch (error) {
    return ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT';
  }
}
