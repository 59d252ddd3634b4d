import { loadConfig, type LoadConfigOptions, type ResolvedServerConfig } from '../config/index.js';
import type { Machine } from '../remote/machine/index.js';
import type { Prepared } from './operations/context.js';
import type { ConnectionPool } from './pool/pool.js';
import { poolKey, poolScope } from './pool/pool-key.js';
import { gateOf, type ServerTextGate } from './server-text/gate.js';

/**
 * What every operation of one host starts from: `mcp.json` read again, the machine's connection
 * lifetime, and the pool key of each entry. When the file changed, the pool is told which keys
 * its entries still produce (the others retire).
 */
export class OperationConfig {
  readonly #machine: Machine;
  readonly #cwd: string;
  readonly #pool: ConnectionPool;
  /** What every loadConfig is given (with the operation's signal, if any). */
  readonly #loadOptions: LoadConfigOptions;
  #last: Prepared | undefined;
  readonly #keys = new WeakMap<ResolvedServerConfig, { readonly lifetime: string; readonly key: string }>();

  constructor(machine: Machine, cwd: string, configPath: string | undefined, pool: ConnectionPool) {
    this.#machine = machine;
    this.#cwd = cwd;
    this.#pool = pool;
    this.#loadOptions = { machine, cwd, ...(configPath === undefined ? {} : { configPath }) };
  }

  async prepare(signal: AbortSignal | undefined): Promise<Prepared> {
    const lifetime = await this.#machine.lifetime(signal);
    const loaded = await loadConfig(signal ? { ...this.#loadOptions, signal } : this.#loadOptions);
    // loadConfig hands back the same object while nothing changed: so does this.
    const last = this.#last;
    if (last?.loaded === loaded && last.lifetime === lifetime) return last;
    const scope = poolScope(this.#machine.identity, this.#cwd, loaded.path);
    // The keys only when the pool holds a connection of this scope: a key hashes its entry.
    this.#pool.sync(scope, () => {
      const live = new Set<string>();
      for (const slot of loaded.servers) if (slot.status === 'ok') live.add(this.key(lifetime, slot.config));
      return live;
    });
    this.#last = { loaded, lifetime, scope };
    return this.#last;
  }

  /** The gate of the config read last: connections mask with it, so an entry added since they opened is masked too. */
  gate(): ServerTextGate {
    if (this.#last === undefined) throw new Error('OperationConfig.gate() before the first prepare()');
    return gateOf(this.#last.loaded.servers);
  }

  key(lifetime: string, config: ResolvedServerConfig): string {
    // Kept per resolved config (immutable, reused while the file is unchanged): one string, hashed once, for every lookup.
    const known = this.#keys.get(config);
    if (known?.lifetime === lifetime) return known.key;
    const key = poolKey(this.#machine.identity, lifetime, this.#cwd, config.fingerprint);
    this.#keys.set(config, { lifetime, key });
    return key;
  }
}
