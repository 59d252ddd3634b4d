/**
 * Rows that compare two sections of the same run: berry-mcp's ratios to a raw SDK call (section 2)
 * and its fan-out over one call (section 3) against a peer's same ratio, measured in section 8 in
 * the peer's own process. Added only when both were run.
 */
import type { Row } from './rows.js';

const SECTION = '2+3+8 vs peers';

const PAIRS = [
  {
    name: 'sandboxed call / raw, over @utcp/code-mode sandboxed call / raw',
    ours: 'sandboxed mcp_call / raw (mean call)',
    peer: 'code-mode sandboxed call / raw (mean call)',
  },
  {
    name: 'sandboxed call / raw, over Mastra code mode sandboxed call / raw',
    ours: 'sandboxed mcp_call / raw (mean call)',
    peer: 'Mastra code mode sandboxed call / raw (mean call)',
  },
  {
    name: '16-way fan-out / one call timed in the script, over Mastra code mode 16-way fan-out / one call',
    // Both timed inside the script: the program's own start (a process for Mastra) left out of both.
    ours: '16-way fan-out / one call, timed in the script',
    peer: 'Mastra code mode 16-way fan-out / one call',
  },
  {
    name: 'host.call / raw, over mcporter runtime.callTool / raw (median call)',
    ours: 'host.call / raw (median call; config reread incl.)',
    peer: 'mcporter runtime.callTool / raw (median call)',
  },
] as const;

export function crossRows(rows: readonly Row[]): Row[] {
  const median = (name: string): number | undefined => rows.find((r) => r.name === name && r.status === undefined)?.median;
  const out: Row[] = [];
  for (const pair of PAIRS) {
    const ours = median(pair.ours);
    const peer = median(pair.peer);
    if (ours === undefined || peer === undefined) continue;
    const ratio = ours / peer;
    out.push({
      section: SECTION,
      name: pair.name,
      unit: 'x',
      median: ratio,
      n: 1,
      target: { max: 1, label: '≤ 1.00× (at or below the peer)' },
      pass: ratio <= 1,
      note: `${ours.toFixed(2)}× against ${peer.toFixed(2)}×, both medians of this run`,
    });
  }
  return out;
}
