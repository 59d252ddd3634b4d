/**
 * Which protocol era a connection speaks. With `"protocol": "auto"` (the default) the SDK probes
 * `server/discover` and falls back to the 2025 `initialize`; the verdict is remembered per
 * connection key (EraMemory), so a reconnect of the same key (after an idle close) adopts it
 * without a second probe. A connection that dies (transport gone, session forgotten, revision
 * refused) forgets it: the server may be back speaking another. A pinned entry speaks its one revision.
 */
import type { PriorDiscovery, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import { SPOKEN_REVISIONS, type ProtocolSetting } from '../../config/index.js';

export interface EraPlan {
  readonly versionNegotiation: VersionNegotiationOptions;
  /** What this connection offers: both revisions, or the pinned one. */
  readonly offered: readonly string[];
}

export function eraPlan(protocol: ProtocolSetting, probeTimeoutMs: number): EraPlan {
  if (protocol === '2025-11-25') return { versionNegotiation: { mode: 'legacy' }, offered: ['2025-11-25'] };
  if (protocol === '2026-07-28') return { versionNegotiation: { mode: { pin: '2026-07-28' } }, offered: ['2026-07-28'] };
  return { versionNegotiation: { mode: 'auto', probe: { timeoutMs: probeTimeoutMs } }, offered: SPOKEN_REVISIONS };
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
