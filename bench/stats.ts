/**
 * Statistics and the alternating-rounds driver. Every comparison in the bench is measured side by
 * side in the same process: each round runs every side once, in an order that rotates from round
 * to round, so that drift (JIT, GC, other load on the machine) hits all sides alike.
 */

export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p95: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
}

/** Linear-interpolated percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) return { n: 0, median: NaN, p95: NaN, min: NaN, max: NaN, mean: NaN };
  return {
    n: samples.length,
    median: median(samples),
    p95: percentile(samples, 95),
    min: Math.min(...samples),
    max: Math.max(...samples),
    mean: mean(samples),
  };
}

/** Element-wise a[i] / b[i]: the ratio of two sides measured in the same round. */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.min(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(a[i]! / b[i]!);
  return out;
}

/** Element-wise a[i] - b[i]. */
export function pairedDifferences(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.min(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(a[i]! - b[i]!);
  return out;
}

/** A side's result for one round: one value, or the samples it took. */
export type RoundResult = number | readonly number[];

export type Sides<K extends string> = Readonly<Record<K, () => Promise<RoundResult>>>;

export interface SideResult {
  /** One value per measured round, in round order: compare sides with `pairedRatios`. */
  readonly perRound: number[];
  /** The median of each round's samples (the round's value when a side returns one number). */
  readonly perRoundMedian: number[];
  /** Every sample of the measured rounds (the round values when a side returns one number). */
  readonly samples: number[];
}

export interface AlternateOptions {
  readonly rounds: number;
  /** Rounds run first and dropped, to warm up the JIT and the connections. @default 1 */
  readonly warmupRounds?: number;
}

/**
 * Runs every side once per round, rotating the order each round (AB, BA, AB… for two sides;
 * ABC, BCA, CAB… for three), so that drift (JIT, GC, other load on the machine) hits all sides
 * alike. Warm-up rounds run the same way and are dropped.
 */
export async function alternate<K extends string>(options: AlternateOptions, sides: Sides<K>): Promise<Record<K, SideResult>> {
  const names = Object.keys(sides) as K[];
  const results = Object.fromEntries(names.map((name) => [name, { perRound: [], perRoundMedian: [], samples: [] }])) as unknown as Record<K, SideResult>;
  const warmup = options.warmupRounds ?? 1;
  for (let round = -warmup; round < options.rounds; round++) {
    const shift = ((round % names.length) + names.length) % names.length;
    const order = [...names.slice(shift), ...names.slice(0, shift)];
    for (const name of order) {
      const result = await sides[name]();
      if (round < 0) continue;
      if (typeof result === 'number') {
        results[name].perRound.push(result);
        results[name].perRoundMedian.push(result);
        results[name].samples.push(result);
      } else {
        results[name].perRound.push(mean(result));
        results[name].perRoundMedian.push(median(result));
        results[name].samples.push(...result);
      }
    }
  }
  return results;
}

export function mean(samples: readonly number[]): number {
  let sum = 0;
  for (const s of samples) sum += s;
  return sum / samples.length;
}

/** Runs `action` `count` times in sequence; returns each run's time in ms. */
export async function timeEach(count: number, action: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await action();
    samples.push(performance.now() - t0);
  }
  return samples;
}

/** Times one run of `action` in ms. */
export async function timeOnce(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}
