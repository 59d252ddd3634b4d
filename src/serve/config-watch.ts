import type { LoadedConfig } from '../config/index.js';
import type { Host } from '../host.js';
import { serverSetKey } from './description/description.js';

/**
 * Rereads `mcp.json` on every request and tells `onChange` when the set of servers differs from
 * the one last seen (no file watcher: a change shows at the next request). A 2025 session keeps
 * one per client; the 2026 mode keeps one per process, since it has no session to keep it in.
 */
export class ConfigWatch {
  readonly #host: Host;
  readonly #onChange: () => void;
  #shownKey: string | undefined;

  constructor(host: Host, onChange: () => void) {
    this.#host = host;
    this.#onChange = onChange;
  }

  /** The config as it is now (or why it cannot be read); signals a change first. */
  async check(): Promise<LoadedConfig | Error> {
    const loaded = await this.#host.readConfig().catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    const key = loaded instanceof Error ? `error:${loaded.message}` : serverSetKey(loaded);
    if (this.#shownKey !== undefined && key !== this.#shownKey) this.#onChange();
    this.#shownKey = key;
    return loaded;
  }
}
