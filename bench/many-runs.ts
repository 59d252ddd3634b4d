/**
 * Section 24: many runs in flight (issue 35). A real `berry-mcp serve --http` (its default worker
 * processes) gets RUNS 2026-07-28 `run` requests at once, spread evenly over HOLDERS tokens of a
 * `--token-file`; each run waits WAIT_MS on the fault fixture's `sleep` tool. serve runs with
 * `--max-concurrency RUNS` (a documented flag: its default of 4 per worker bounds the memory runs
 * may take, and a waiting run holds its slot); every cap of a holder and a client follows from it
 * (three quarters of it each), so no cap refuses a run.
 *
 * Rows: runs completed of RUNS, run latency p50 and p99 (from the POST to its answer), the serve
 * process tree's RSS before the load and at its peak (serve, its workers and the fault server,
 * sampled every 50 ms), and the peak's excess over that baseline per run in flight (target ≤ 4 MB).
 * ROUNDS rounds, each against the same serve after the last one's runs ended.
 *
 *   node --no-node-snapshot dist/bench/many-runs.js [--runs 256] [--workers N] [--serve-args '--no-check'] [--prof DIR]
 * runs it alone.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { childPidsOf } from '../test/support/processes.js';
import { faultEntry, settled, tempDir, writeConfig } from './fixtures.js';
import { rssOf } from './memory.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';
import { printRows, value, type Row } from './rows.js';
import { median, percentile } from './stats.js';

const SECTION = '24 many runs';
const RUNS = 256;
/** Tokens the runs are spread over: 64 runs each, well inside a holder's three quarters of the slots. */
const HOLDERS = 4;
const WAIT_MS = 2_000;
const ROUNDS = Number(process.env['BENCH_MANY_RUNS_ROUNDS'] ?? 3);
/** The target: what a run in flight may add to the serve tree's RSS. */
const MAX_MB_PER_RUN = 4;
const MB = 1024 * 1024;
const MODERN = '2026-07-28';
const SCRIPT = `return await tools.mcp_call({ server: "slow", tool: "sleep", arguments: { ms: ${WAIT_MS} } });`;

export interface ManyRunsOptions {
  readonly runs?: number;
  /** serve's --workers; undefined: its default. */
  readonly workers?: number;
  /** More serve flags (diagnostics), e.g. `--no-check`. */
  readonly serveArgs?: readonly string[];
  /** Puts serve under --cpu-prof, its profile written to this directory at exit. */
  readonly profileDir?: string;
  readonly log?: (message: string) => void;
}

interface Round {
  readonly completed: number;
  readonly firstFailure?: string;
  readonly latenciesMs: number[];
  readonly baselineBytes: number;
  readonly peakBytes: number;
  /** Each process's baseline and its own peak's excess over it, in MB. */
  readonly parts: string;
}

export default async function manyRuns(log: (message: string) => void = () => {}): Promise<Row[]> {
  return measureManyRuns({ log });
}

export async function measureManyRuns(options: ManyRunsOptions = {}): Promise<Row[]> {
  const runs = options.runs ?? RUNS;
  const log = options.log ?? (() => {});
  const { dir, remove } = tempDir('many-runs');
  const tokens = Array.from({ length: HOLDERS }, (_, i) => `bench-many-runs-${i}-0123456789abcdef`);
  writeFileSync(join(dir, 'tokens'), tokens.map((t, i) => `holder${i} ${t}\n`).join(''));
  chmodSync(join(dir, 'tokens'), 0o600);
  const config = writeConfig(dir, { slow: faultEntry() });
  await settled(config);
  const workers = options.workers === undefined ? [] : ['--workers', String(options.workers)];
  const serve = await startServeProcess(
    ['--config', config, '--token-file', 'tokens', '--max-concurrency', String(runs), ...workers, ...(options.serveArgs ?? [])],
    {
      cwd: dir,
      profileDir: options.profileDir,
    },
  );
  // A connection per run, as separate clients would have: a kept-alive socket that serve closes
  // after its idle timeout (5 s, between rounds) would fail the next run sent on it (ECONNRESET).
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  try {
    // The fault server connects, and each worker makes its first isolates, before the baseline.
    await Promise.all(
      tokens.map((t, i) => post(serve.url, agent, t, `warm-${i}`, 'return await tools.mcp_call({ server: "slow", tool: "sleep", arguments: { ms: 1 } });')),
    );
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await sleep(1_000);
      const round = await measureRound(serve, agent, tokens, runs, r);
      log(
        `round ${r + 1}: ${round.completed}/${runs} completed, p50 ${median(round.latenciesMs).toFixed(0)} ms, ` +
          `+${((round.peakBytes - round.baselineBytes) / MB).toFixed(1)} MB at peak over a baseline of ${(round.baselineBytes / MB).toFixed(0)} MB (${round.parts})`,
      );
      rounds.push(round);
    }
    return rowsOf(rounds, runs);
  } finally {
    agent.destroy();
    await serve.stop();
    remove();
  }
}

function rowsOf(rounds: readonly Round[], runs: number): Row[] {
  const completed = Math.min(...rounds.map((r) => r.completed));
  const failure = rounds.find((r) => r.firstFailure !== undefined)?.firstFailure;
  const latencies = rounds.flatMap((r) => r.latenciesMs);
  const perRun = median(rounds.map((r) => (r.peakBytes - r.baselineBytes) / runs / MB));
  const label = `${runs} runs in flight over ${HOLDERS} tokens, each waiting ${WAIT_MS / 1000} s on a tool`;
  return [
    {
      ...value(
        SECTION,
        `${label}: runs completed (fewest of ${rounds.length} rounds)`,
        'count',
        completed,
        failure === undefined ? {} : { note: failure.slice(0, 200) },
      ),
      target: { max: Number.POSITIVE_INFINITY, label: `all ${runs}` },
      pass: completed === runs,
    },
    { ...value(SECTION, `${label}: run latency p50 (p95 beside)`, 'ms', median(latencies)), p95: percentile(latencies, 95), n: latencies.length },
    value(SECTION, `${label}: run latency p99`, 'ms', percentile(latencies, 99)),
    value(SECTION, `${label}: serve tree RSS before the load`, 'MB', median(rounds.map((r) => r.baselineBytes / MB))),
    value(SECTION, `${label}: serve tree RSS at peak`, 'MB', median(rounds.map((r) => r.peakBytes / MB))),
    {
      ...value(SECTION, `${label}: peak RSS above the baseline, per run in flight`, 'MB', perRun, {
        note: rounds.map((r) => ((r.peakBytes - r.baselineBytes) / runs / MB).toFixed(2)).join(', '),
      }),
      target: { max: MAX_MB_PER_RUN, label: `≤ ${MAX_MB_PER_RUN} MB` },
      pass: perRun <= MAX_MB_PER_RUN,
    },
  ];
}

async function measureRound(serve: ServeProcess, agent: Agent, tokens: readonly string[], runs: number, round: number): Promise<Round> {
  const pids = [serve.child.pid!, ...childPidsOf(serve.child.pid!)];
  const roles = pids.map((pid) => roleOf(pid, serve.child.pid!));
  const baseline = pids.map(rssOf);
  const cpuFrom = pids.map(cpuMsOf);
  const peaks = [...baseline];
  const baselineBytes = sum(baseline);
  let peakBytes = baselineBytes;
  const sample = (): void => {
    const now = pids.map(rssOf);
    for (const [i, bytes] of now.entries()) peaks[i] = Math.max(peaks[i]!, bytes);
    peakBytes = Math.max(peakBytes, sum(now));
  };
  const sampler = setInterval(sample, 50);
  const latenciesMs: number[] = [];
  let firstFailure: string | undefined;
  try {
    await Promise.all(
      Array.from({ length: runs }, async (_, i) => {
        const t0 = performance.now();
        try {
          await post(serve.url, agent, tokens[i % tokens.length]!, `r${round}-${i}`, SCRIPT);
          latenciesMs.push(performance.now() - t0);
        } catch (error) {
          firstFailure ??= (error as Error).message;
        }
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  sample();
  // Where the peak was: each process's own peak over its baseline (they need not peak together).
  const parts = pids
    .map((pid, i) => {
      const cpu = (cpuMsOf(pid) - cpuFrom[i]!) / runs;
      return `${roles[i]} ${(baseline[i]! / MB).toFixed(0)} +${((peaks[i]! - baseline[i]!) / MB).toFixed(0)} MB, ${cpu.toFixed(2)} ms CPU/run`;
    })
    .join('; ');
  return { completed: latenciesMs.length, ...(firstFailure === undefined ? {} : { firstFailure }), latenciesMs, baselineBytes, peakBytes, parts };
}

/** CPU time (user + system) of `pid`, all its threads, in ms (0 when it is gone). */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, n) => total + n, 0);
}

/** serve, one of its run workers, or a server it started. */
function roleOf(pid: number, servePid: number): string {
  if (pid === servePid) return 'serve';
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('run-worker') ? 'worker' : 'server';
  } catch {
    return 'gone';
  }
}

/** One 2026-07-28 `tools/call run` by the holder of `token`; rejects unless the run succeeded. */
function post(url: string, agent: Agent, token: string, id: string, code: string): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'run',
      arguments: { code },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'bench-many-runs', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': 'run',
    'content-length': String(Buffer.byteLength(body)),
  };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
        const lines = (res.headers['content-type'] ?? '').startsWith('text/event-stream')
          ? text
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5))
          : [text];
        const answer = lines.map((line) => JSON.parse(line) as { id?: string; result?: { isError?: boolean; content?: unknown } }).find((m) => m.id === id);
        if (answer?.result !== undefined && answer.result.isError !== true) resolve();
        else reject(new Error(`run ${id} failed: ${text.slice(0, 300)}`));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  printRows(
    measureManyRuns({
      ...(flag('--runs') ? { runs: Number(flag('--runs')) } : {}),
      ...(flag('--workers') ? { workers: Number(flag('--workers')) } : {}),
      ...(flag('--serve-args') ? { serveArgs: flag('--serve-args')!.split(' ') } : {}),
      ...(flag('--prof') ? { profileDir: flag('--prof')! } : {}),
      log: (m) => process.stderr.write(`${m}\n`),
    }),
  );
}
