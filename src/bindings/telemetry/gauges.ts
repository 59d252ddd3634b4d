/**
 * The gauges read when a metric reader collects: pooled connections by state, start-backoff
 * windows open now, and what a face adds (serve's queue depth). Sources are held weakly: a pool
 * or queue nobody uses any more stops being counted without an unregister.
 */
import type { Attributes, Meter, ObservableResult } from '@opentelemetry/api';

/** Counts by attribute set, summed over every source of one gauge. */
export type GaugeReading = Iterable<readonly [Attributes, number]>;

type Source = () => GaugeReading;

const sources = new Map<string, Set<WeakRef<object>>>();
const readers = new WeakMap<object, Source>();

/** Counts `owner` under the gauge `name` while `owner` lives; `read` is called at each collection. */
export function observe(name: string, owner: object, read: Source): void {
  if (readers.has(owner)) return;
  let set = sources.get(name);
  if (set === undefined) sources.set(name, (set = new Set()));
  set.add(new WeakRef(owner));
  readers.set(owner, read);
}

/** Called once per meter provider (instruments.ts): one observable gauge per name. */
export function createGauges(meter: Meter): void {
  const gauge = (name: string, description: string, unit: string): void => {
    meter.createObservableGauge(name, { description, unit }).addCallback((result) => collect(name, result));
  };
  gauge('berry.connections', 'Pooled MCP connections, by state (connecting, active, idle).', '{connection}');
  gauge('berry.backoff.open', 'Servers whose last start failed and that are not started again before their backoff window ends.', '{server}');
  gauge('berry.serve.queue.depth', "Runs waiting in serve's queue for a slot.", '{run}');
}

function collect(name: string, result: ObservableResult): void {
  const set = sources.get(name);
  if (set === undefined) return;
  const totals = new Map<string, { attributes: Attributes; value: number }>();
  for (const ref of set) {
    const owner = ref.deref();
    const read = owner && readers.get(owner);
    if (read === undefined) {
      set.delete(ref);
      continue;
    }
    for (const [attributes, value] of read()) {
      const key = JSON.stringify(attributes);
      const total = totals.get(key);
      if (total) total.value += value;
      else totals.set(key, { attributes, value });
    }
  }
  for (const { attributes, value } of totals.values()) result.observe(value, attributes);
}
