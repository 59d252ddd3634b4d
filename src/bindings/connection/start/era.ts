/**
 * Which protocol era a connection speaks. With `"protocol": "auto"` (the default) the SDK probes
 * `server/discover` and falls back to the 2025 `initialize`; the verdict is remembered per
 * connection key (EraMemory), so a reconnect of the same key (after an idle close) adopts it
 * without a second probe. A connection that dies (transport gone, session forgotten, revision
 * refused) forgets it: the server may be back speaking another. A pinned entry speaks its one revision.
 */
import type { PriorDiscovery, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import { SPOKEN_REVISIONS, type ProtocolSetting } from '../../../config/index.js';

/**
 * The `server/discover` probe's own budget, inside the start's (initTimeoutMs, ≤ 30 s): a 2025
 * server that never answers it still gets `initialize` with the rest. 10 s holds a cold start
 * (serverless, `npx`/`uvx` fetching, SSH round trips) that answers late but honestly; a third of
 * a shorter start budget. Over stdio it is the SDK's probe timeout: then the SDK sends `initialize`
 * on the same process (a late answer to the probe is ignored). Over HTTP it is the silence of the
 * probe's POST (probe-outcome.ts: OAuth work around it does not count): then berry-mcp connects
 * again, in 2025-11-25 at once. The verdict is kept for the key either way.
 */
export const PROBE_BUDGET_MS = 10_000;

export function probeBudgetMs(startBudgetMs: number): number {
  return Math.max(1, Math.min(PROBE_BUDGET_MS, Math.floor(startBudgetMs / 3)));
}

export interface EraPlan {
  readonly versionNegotiation: VersionNegotiationOptions;
  /** The probe's own budget (auto), or 0: the probe, if any, may take the whole start. */
  readonly probeMs: number;
  /** What this connection offers: both revisions, or the pinned one. */
  readonly offered: readonly string[];
}

/**
 * `startBudgetMs`: what is left of the start's budget; a pinned 2026-07-28 probe may use all of it.
 * Under auto the SDK times the probe itself over stdio; over HTTP a ProbeWatch does (`probeMs`).
 */
export function eraPlan(protocol: ProtocolSetting, startBudgetMs: number, wire: 'stdio' | 'http'): EraPlan {
  if (protocol === '2025-11-25') return { versionNegotiation: { mode: 'legacy' }, probeMs: 0, offered: ['2025-11-25'] };
  if (protocol === '2026-07-28')
    return { versionNegotiation: { mode: { pin: '2026-07-28' }, probe: { timeoutMs: startBudgetMs } }, probeMs: 0, offered: ['2026-07-28'] };
  const probeMs = probeBudgetMs(startBudgetMs);
  return { versionNegotiation: { mode: 'auto', probe: { timeoutMs: wire === 'stdio' ? probeMs : startBudgetMs } }, probeMs, offered: SPOKEN_REVISIONS };
}

/** The era verdicts of one host, by connection key: probed once, adopted by every reconnect. */
export class EraMemory {
  readonly #verdicts = new Map<string, PriorDiscovery>();

  get(key: string): PriorDiscovery | undefined {
    return this.#verdicts.get(key);
  }

  set(key: string, verdict: PriorDiscovery): void {
    this.#verdicts.set(key, verdict);
  }

  /** A verdict the server contradicted (it refused the revision): the next connect probes again. */
  forget(key: string): void {
    this.#verdicts.delete(key);
  }
}

/** Where a connection finds and leaves its key's verdict. */
export interface EraSlot {
  readonly memory: EraMemory;
  readonly key: string;
}
