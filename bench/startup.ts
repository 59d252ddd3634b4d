/**
 * Section 13: CLI start-up, as ratios against a baseline measured in the same rounds.
 * `berry-mcp --help` and `echo 'text(1)' | berry-mcp run -` against `node -e 0` (and the same run
 * written in TypeScript against it); a one-shot
 * `berry-mcp call everything echo` against a raw SDK one-shot script (spawn, call, close).
 * Each is a real process started the way a person starts it: the `berry-mcp` launcher that
 * `npx berry-mcp` and node_modules/.bin run (bin/berry-mcp).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../test/support/paths.js';
import { everythingEntry, everythingPath, NODE, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios } from './stats.js';

const SECTION = '13 start-up';
const ROUNDS = 10;
const BIN = join(PROJECT_ROOT, 'bin', 'berry-mcp');
const RAW_ONE_SHOT = join(PROJECT_ROOT, 'bench', 'peers', 'raw-oneshot.mjs');

/**
 * Runs a process to its end; resolves to its wall-clock time in ms, or rejects if it failed:
 * exited non-zero, or its stdout lacks `expect` (a string), or `expect` (a function) throws on it.
 */
export function timeProcess(
  command: string,
  args: readonly string[],
  expect: string | ((stdout: string) => void),
  options: { cwd: string; input?: string; env?: NodeJS.ProcessEnv },
): () => Promise<number> {
  return () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const child = spawn(command, [...args], { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
      child.on('error', reject);
      child.on('close', (code) => {
        const ms = performance.now() - started;
        try {
          if (code !== 0 || (typeof expect === 'string' && !stdout.includes(expect)))
            throw new Error(`${args.join(' ')} exited ${code}: ${stderr.trim() || stdout.trim()}`);
          if (typeof expect === 'function') expect(stdout);
          resolve(ms);
        } catch (error) {
          reject(error);
        }
      });
      child.stdin.end(options.input ?? '');
    });
}

export default async function startup(): Promise<Row[]> {
  const { dir, remove } = tempDir('startup');
  const config = writeConfig(dir, { everything: everythingEntry() });
  try {
    const cwd = dir;
    const local = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        node: timeProcess(NODE, ['-e', 'process.stdout.write("0")'], '0', { cwd }),
        help: timeProcess(BIN, ['--help'], 'Usage:', { cwd }),
        run: timeProcess(BIN, ['run', '-', '--config', config], '1', { cwd, input: 'text(1)' }),
        // The same run as TypeScript: the first such script of a process loads the type stripper.
        runTs: timeProcess(BIN, ['run', '-', '--config', config], '1', { cwd, input: 'const n: number = 1; text(n)' }),
      },
    );
    const oneShot = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        berry: timeProcess(BIN, ['call', 'everything', 'echo', '{"message":"bench"}', '--config', config], 'Echo: bench', { cwd }),
        // key=value reads the tool's schema first (tools/list) to type the values.
        keyValue: timeProcess(BIN, ['call', 'everything', 'echo', 'message=bench', '--config', config], 'Echo: bench', { cwd }),
        raw: timeProcess(NODE, [RAW_ONE_SHOT, JSON.stringify({ node: NODE, everythingPath })], 'Echo: bench', { cwd }),
      },
    );
    return [
      row(SECTION, 'node -e 0', 'ms', local.node.samples),
      row(SECTION, 'berry-mcp --help', 'ms', local.help.samples),
      row(SECTION, "echo 'text(1)' | berry-mcp run -", 'ms', local.run.samples),
      row(SECTION, '--help / node -e 0', 'x', pairedRatios(local.help.perRound, local.node.perRound), {
        target: { max: 1.5, label: '≤ 1.5×' },
      }),
      row(SECTION, 'run text(1) / node -e 0', 'x', pairedRatios(local.run.perRound, local.node.perRound), {
        target: { max: 2.5, label: '≤ 2.5×' },
      }),
      row(SECTION, "echo 'const n: number = 1; text(n)' | berry-mcp run -", 'ms', local.runTs.samples),
      row(SECTION, 'run TypeScript text(n) / run text(1)', 'x', pairedRatios(local.runTs.perRound, local.run.perRound)),
      row(SECTION, "berry-mcp call everything echo '{...}' (one-shot)", 'ms', oneShot.berry.samples),
      row(SECTION, 'berry-mcp call everything echo message=… (one-shot)', 'ms', oneShot.keyValue.samples),
      row(SECTION, 'raw SDK one-shot script (spawn, call, close)', 'ms', oneShot.raw.samples),
      row(SECTION, 'one-shot call / raw SDK one-shot', 'x', pairedRatios(oneShot.berry.perRound, oneShot.raw.perRound), {
        target: { max: 1, label: '≤ 1.00×' },
      }),
      row(SECTION, 'one-shot call key=value / raw SDK one-shot', 'x', pairedRatios(oneShot.keyValue.perRound, oneShot.raw.perRound)),
    ];
  } finally {
    remove();
  }
}
