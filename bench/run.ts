/**
 * `npm run bench`: runs the sections one after the other, prints the table and writes it as JSON
 * to bench/results/latest.json. A section that fails (or times out) reports its error in the table
 * and the others still run.
 *
 *   node --no-node-snapshot dist/bench/run.js [--only 1,2,8] [--out FILE]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../test/support/paths.js';
import { crossRows } from './cross-rows.js';
import { messageOf, missing, type Row } from './rows.js';

type SectionFn = (log: (message: string) => void) => Promise<Row[]>;

interface Section {
  readonly id: string;
  readonly title: string;
  readonly load: () => Promise<SectionFn>;
  /** How a failure reads in the table. */
  readonly failure: 'error' | 'skipped' | 'unavailable';
  readonly timeoutMs: number;
}

// Modules load inside each section: one that does not even load is that section's error only.
const SECTIONS: readonly Section[] = [
  { id: '1', title: '1 sandbox start', load: async () => (await import('./sandbox.js')).default, failure: 'error', timeoutMs: 60_000 },
  { id: '2', title: '2 warm call', load: async () => (await import('./calls.js')).warmCalls, failure: 'error', timeoutMs: 90_000 },
  { id: '3', title: '3 fan-out', load: async () => (await import('./calls.js')).fanOut, failure: 'error', timeoutMs: 60_000 },
  { id: '4', title: '4 config reread', load: async () => (await import('./config.js')).default, failure: 'error', timeoutMs: 90_000 },
  { id: '5', title: '5 cold start', load: async () => (await import('./cold.js')).default, failure: 'error', timeoutMs: 90_000 },
  { id: '6', title: '6 HTTP warm call', load: async () => (await import('./http.js')).default, failure: 'error', timeoutMs: 90_000 },
  { id: '7', title: '7 SSH', load: async () => (await import('./ssh.js')).default, failure: 'skipped', timeoutMs: 90_000 },
  { id: '8', title: '8 peers', load: async () => (await import('./peers.js')).default, failure: 'unavailable', timeoutMs: 480_000 },
  { id: '9', title: '9 memory', load: async () => (await import('./memory.js')).default, failure: 'error', timeoutMs: 60_000 },
  { id: '10', title: '10 serve', load: async () => (await import('./serve.js')).default, failure: 'error', timeoutMs: 120_000 },
  { id: '11', title: '11 large results', load: async () => (await import('./large-results.js')).default, failure: 'error', timeoutMs: 180_000 },
  { id: '12', title: '12 soak', load: async () => (await import('./soak.js')).default, failure: 'error', timeoutMs: 600_000 },
  { id: '13', title: '13 start-up', load: async () => (await import('./startup.js')).default, failure: 'error', timeoutMs: 180_000 },
  { id: '14', title: '14 saved catalogs', load: async () => (await import('./catalogs.js')).default, failure: 'error', timeoutMs: 90_000 },
  { id: '15', title: '15 confined start', load: async () => (await import('./confined.js')).default, failure: 'skipped', timeoutMs: 120_000 },
  { id: '16', title: '16 argument check', load: async () => (await import('./arguments.js')).default, failure: 'error', timeoutMs: 120_000 },
  { id: '17', title: '17 serve load', load: async () => (await import('./serve-load.js')).default, failure: 'error', timeoutMs: 300_000 },
  { id: '18', title: '18 search', load: async () => (await import('./search.js')).default, failure: 'error', timeoutMs: 120_000 },
  { id: '19', title: '19 check before a run', load: async () => (await import('./check.js')).default, failure: 'error', timeoutMs: 300_000 },
  { id: '20', title: '20 store and load', load: async () => (await import('./state.js')).default, failure: 'error', timeoutMs: 180_000 },
  { id: '21', title: '21 telemetry', load: async () => (await import('./telemetry.js')).default, failure: 'error', timeoutMs: 180_000 },
  { id: '22', title: '22 many servers', load: async () => (await import('./many-servers.js')).default, failure: 'error', timeoutMs: 600_000 },
  { id: '23', title: '23 many tools', load: async () => (await import('./many-tools.js')).default, failure: 'error', timeoutMs: 300_000 },
  { id: '24', title: '24 many runs', load: async () => (await import('./many-runs.js')).default, failure: 'error', timeoutMs: 300_000 },
  { id: '25', title: '25 token economy', load: async () => (await import('./token-economy.js')).default, failure: 'error', timeoutMs: 120_000 },
];

interface SectionReport {
  readonly title: string;
  readonly seconds: number;
  readonly error?: string;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = flagValue(args, '--only')?.split(',');
  const out = flagValue(args, '--out') ?? join(PROJECT_ROOT, 'bench', 'results', 'latest.json');
  const started = performance.now();
  const log = (message: string): void => {
    process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${message}\n`);
  };
  // A stray rejection inside a section must not end the whole bench.
  process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${messageOf(reason)}`));

  const rows: Row[] = [];
  const sections: SectionReport[] = [];
  for (const section of SECTIONS) {
    if (only && !only.includes(section.id)) continue;
    log(`${section.title} …`);
    const t0 = performance.now();
    try {
      const fn = await section.load();
      rows.push(...(await withTimeout(fn(log), section.timeoutMs)));
      sections.push({ title: section.title, seconds: (performance.now() - t0) / 1000 });
    } catch (error) {
      const message = messageOf(error);
      rows.push(missing(section.title, '(section)', `${section.failure}: ${message}`));
      sections.push({ title: section.title, seconds: (performance.now() - t0) / 1000, error: message });
      log(`${section.title} failed: ${(error as Error)?.stack ?? message}`);
    }
    log(`${section.title} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  rows.push(...crossRows(rows));
  const totalSeconds = (performance.now() - started) / 1000;

  process.stdout.write(`${formatTable(rows)}\n`);
  const withTarget = rows.filter((r) => r.target);
  const passed = withTarget.filter((r) => r.pass === true).length;
  const missed = withTarget.filter((r) => r.pass === false);
  const unmeasured = withTarget.filter((r) => r.pass === undefined).length;
  process.stdout.write(
    `\ntargets: ${passed} pass, ${missed.length} miss${missed.length ? ` (${missed.map((r) => r.name).join('; ')})` : ''}, ${unmeasured} not measured\n`,
  );
  process.stdout.write(`total ${totalSeconds.toFixed(1)} s (node ${process.version}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)})\n`);

  mkdirSync(dirname(out), { recursive: true });
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadAverage: loadavg(),
    totalSeconds,
    sections,
    rows,
  };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`written to ${out}\n`);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function flagValue(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

function formatNumber(v: number | undefined, unit: Row['unit']): string {
  if (v === undefined || Number.isNaN(v)) return '';
  if (unit === 'x') return `${v.toFixed(2)}×`;
  if (unit === '%') return `${v.toFixed(1)} %`;
  if (unit === 'MB') return `${v.toFixed(1)} MB`;
  if (unit === 'count') return String(v);
  if (unit === '/s') return `${v.toFixed(1)} /s`;
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return `${unit === 'ms (diff)' && v >= 0 ? '+' : ''}${v.toFixed(digits)} ms`;
}

function formatTable(rows: readonly Row[]): string {
  const header = ['section', 'measure', 'median', 'p95', 'n', 'target', 'result'];
  const lines = rows.map((r) => [
    r.section,
    r.name,
    r.status ? '' : formatNumber(r.median, r.unit),
    r.status ? '' : formatNumber(r.p95, r.unit),
    r.n === undefined ? '' : String(r.n),
    r.target?.label ?? '',
    r.status ?? (r.pass === undefined ? '' : r.pass ? 'pass' : 'MISS'),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (i === 6 ? 0 : l[i]!.length))));
  const format = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 6 ? c : i >= 2 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w, i) => '-'.repeat(i === 6 ? 6 : w)).join('  ');
  const body: string[] = [];
  let previous: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const cells = lines[i]!;
    if (previous !== undefined && cells[0] !== previous) body.push('');
    body.push(format(previous === cells[0] ? ['', ...cells.slice(1)] : cells));
    previous = cells[0];
  }
  return [format(header), rule, ...body].join('\n');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
