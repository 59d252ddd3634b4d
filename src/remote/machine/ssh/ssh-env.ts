import { BerryError } from '../../../common/errors.js';

/** Output of a short command run to completion. */
export interface RunResult {
  readonly code: number | undefined;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** The login environment of the connection: `env -0`, else plain `env`. */
export async function readLoginEnv(run: (command: string) => Promise<RunResult>, identity: string): Promise<Record<string, string>> {
  const zero = await run('env -0');
  if (zero.code === 0) return Object.freeze(parseEnv(zero.stdout.toString('utf8'), '\0'));
  // `env -0` is GNU/BSD-newer; plain `env` loses only values that contain newlines.
  const plain = await run('env');
  if (plain.code === 0) return Object.freeze(parseEnv(plain.stdout.toString('utf8'), '\n'));
  throw new BerryError('MACHINE_UNAVAILABLE', `Cannot read the environment of ${identity}: ${plain.stderr.trim() || `env exited with ${plain.code}`}`);
}

/** Parses `NAME=value` records; a record without `=` continues the previous value (plain `env`). */
export function parseEnv(text: string, separator: '\0' | '\n'): Record<string, string> {
  const env: Record<string, string> = Object.create(null);
  let last: string | undefined;
  for (const record of text.split(separator)) {
    const eq = record.indexOf('=');
    if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(record.slice(0, eq))) {
      last = record.slice(0, eq);
      env[last] = record.slice(eq + 1);
    } else if (separator === '\n' && last !== undefined && record !== '') {
      env[last] += `\n${record}`;
    }
  }
  return env;
}
