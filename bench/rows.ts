/**
 * The rows of the results table. A section returns rows; run.ts prints them and writes them as
 * JSON. A row with a target says whether its median meets it.
 */
import { summarize, type Summary } from './stats.js';

export type Unit = 'ms' | 'x' | '%' | 'MB' | 'ms (diff)' | 'count' | '/s';

/** A target on the row's median: `max` is the largest value that passes. */
export interface Target {
  readonly max: number;
  /** How the target reads in the table, e.g. "≤ 1.10× raw". */
  readonly label: string;
}

export interface Row {
  readonly section: string;
  readonly name: string;
  readonly unit: Unit;
  readonly median?: number;
  readonly p95?: number;
  readonly n?: number;
  readonly target?: Target;
  /** Set when the row has a target and a value. */
  readonly pass?: boolean;
  /** 'unavailable: …', 'skipped: …' or 'error: …' instead of a value. */
  readonly status?: string;
  readonly note?: string;
}

export interface RowOptions {
  readonly target?: Target;
  readonly note?: string;
}

/** A row from samples: median, p95 and count. */
export function row(section: string, name: string, unit: Unit, samples: readonly number[], options: RowOptions = {}): Row {
  return fromSummary(section, name, unit, summarize(samples), options);
}

export function fromSummary(section: string, name: string, unit: Unit, s: Summary, options: RowOptions = {}): Row {
  return {
    section,
    name,
    unit,
    median: s.median,
    p95: s.p95,
    n: s.n,
    ...(options.target ? { target: options.target, pass: s.median <= options.target.max } : {}),
    ...(options.note ? { note: options.note } : {}),
  };
}

/** A single measured value (no distribution). */
export function value(section: string, name: string, unit: Unit, v: number, options: RowOptions = {}): Row {
  return {
    section,
    name,
    unit,
    median: v,
    n: 1,
    ...(options.target ? { target: options.target, pass: v <= options.target.max } : {}),
    ...(options.note ? { note: options.note } : {}),
  };
}

/** A row that could not be measured, with the reason. */
export function missing(section: string, name: string, status: string, target?: Target): Row {
  return { section, name, unit: 'ms', status, ...(target ? { target } : {}) };
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.message;
  return String(error);
}

/** A section run alone (`node dist/bench/X.js`): its rows as lines on stdout, or its error on stderr and exit code 1. */
export function printRows(rows: Promise<readonly Row[]>): void {
  rows.then(
    (all) => {
      for (const r of all) {
        process.stdout.write(
          `${r.name}: ${r.median?.toFixed(2)}${r.p95 === undefined ? '' : ` (p95 ${r.p95.toFixed(2)})`} ${r.unit}${r.note ? ` (${r.note})` : ''}\n`,
        );
      }
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
