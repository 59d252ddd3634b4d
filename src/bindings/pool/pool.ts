import { BerryError } from '../../common/errors.js';
import type { ServerConnection } from '../connection/connection.js';
import { SharedWork } from '../../common/shared-work.js';
import { withReused } from '../telemetry/reused.js';

export interface ConnectionPoolOptions {
  /** An entry with nothing in flight closes after this long. @default 300000 */
  readonly idleTimeoutMs?: number;
}

interface Entry {
  readonly key: string;
  /** The connect, shared by every first user and abandoned only when all of them left. */
  readonly connect: SharedWork<ServerConnection>;
  readonly promise: Promise<ServerConnection>;
  connection: ServerConnection | undefined;
  inFlight: number;
  /** One timer per idle period, not one per operation: it re-arms itself for what is left. */
  idleTimer: NodeJS.Timeout | undefined;
  idleSince: number;
  /** The config scopes (machine + cwd + config file) whose last read still names this entry. */
  readonly scopes: Set<string>;
  retired: boolean;
}

/**
 * Shares MCP connections by key: machine identity + connection lifetime + working directory +
 * resolved-config fingerprint. Nothing else shares a connection. Several hosts may share one pool.
 */
export class ConnectionPool {
  readonly idleTimeoutMs: number;
  readonly #entries = new Map<string, Entry>();
  /** Every entry not yet closed, including retired ones still finishing their operations. */
  readonly #live = new Set<Entry>();
  /** How many entries of #live have each key: `isOpen` is asked once per server by every list. */
  readonly #liveKeys = new Map<string, number>();
  /** Connections closing now (retired, idle, dead): close() waits for them too. */
  readonly #closing = new Set<Promise<void>>();
  #closed = false;

  constructor(options: ConnectionPoolOptions = {}) {
    const idle = options.idleTimeoutMs ?? 300_000;
    if (!Number.isFinite(idle) || idle < 0) {
      throw new TypeError(`idleTimeoutMs must be a non-negative number of milliseconds, got ${String(idle)}`);
    }
    this.idleTimeoutMs = idle;
  }

  /** Number of live entries (connected or connecting). */
  get size(): number {
    return this.#entries.size;
  }

  /** Entries by state, for the `berry.connections` gauge: connecting, active (operations in flight), idle. */
  *states(): Generator<readonly [{ readonly state: string }, number]> {
    let connecting = 0;
    let active = 0;
    for (const entry of this.#entries.values()) {
      if (entry.connection === undefined) connecting++;
      else if (entry.inFlight > 0) active++;
    }
    yield [{ state: 'connecting' }, connecting];
    yield [{ state: 'active' }, active];
    yield [{ state: 'idle' }, this.#entries.size - connecting - active];
  }

  /** True while any connection whose key starts with `prefix` is open or still finishing. */
  hasOpen(prefix: string): boolean {
    for (const entry of this.#live) if (entry.key.startsWith(prefix)) return true;
    return false;
  }

  /** True while a connection of exactly `key` is open or still finishing (hasOpen of a whole key, without the scan). */
  isOpen(key: string): boolean {
    return this.#liveKeys.has(key);
  }

  /** True while `key` has a connection, open or still connecting, that the next use would join. */
  has(key: string): boolean {
    const entry = this.#entries.get(key);
    return entry !== undefined && !entry.connection?.dead && !entry.connect.abandoned;
  }

  /**
   * Runs `fn` on the connection for `key`, opening it with `open` if needed. Concurrent first
   * uses share one connect, which runs under its own signal: `signal` ends only this caller's
   * wait, and the connect is abandoned once every caller waiting for it has gone. A rejected
   * connect leaves no entry.
   */
  async use<T>(
    key: string,
    scope: string,
    open: (signal: AbortSignal) => Promise<ServerConnection>,
    fn: (connection: ServerConnection) => Promise<T>,
    signal?: AbortSignal,
    what = 'Connecting to the server',
  ): Promise<T> {
    if (this.#closed) throw closedError();
    let entry = this.#entries.get(key);
    if (entry?.connection?.dead || entry?.connect.abandoned) {
      this.#retire(entry);
      entry = undefined;
    }
    // The operation's spans say whether its connection was there (or on its way) before it began.
    const reused = entry !== undefined;
    entry ??= this.#create(key, open);
    entry.scopes.add(scope);
    entry.inFlight++;
    try {
      let connection = entry.connection;
      if (!connection) {
        try {
          connection = await entry.connect.join(signal, what);
        } catch (error) {
          // The connect was abandoned because the pool closed, not because anyone gave up on it.
          if (this.#closed && !signal?.aborted) throw closedError();
          throw error;
        }
      }
      const ready = connection;
      return await withReused(reused, () => fn(ready));
    } finally {
      entry.inFlight--;
      this.#settle(entry);
    }
  }

  #create(key: string, open: (signal: AbortSignal) => Promise<ServerConnection>): Entry {
    const connect = new SharedWork(open);
    const entry: Entry = {
      key,
      connect,
      promise: connect.promise,
      connection: undefined,
      inFlight: 0,
      idleTimer: undefined,
      idleSince: 0,
      scopes: new Set(),
      retired: false,
    };
    this.#entries.set(key, entry);
    this.#addLive(entry);
    entry.promise.then(
      (connection) => {
        entry.connection = connection;
        connection.onDead = () => this.#retire(entry);
        if (entry.retired || this.#closed) this.#settle(entry);
      },
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
        this.#deleteLive(entry);
      },
    );
    return entry;
  }

  #addLive(entry: Entry): void {
    this.#live.add(entry);
    this.#liveKeys.set(entry.key, (this.#liveKeys.get(entry.key) ?? 0) + 1);
  }

  #deleteLive(entry: Entry): void {
    if (!this.#live.delete(entry)) return;
    const left = (this.#liveKeys.get(entry.key) ?? 1) - 1;
    if (left > 0) this.#liveKeys.set(entry.key, left);
    else this.#liveKeys.delete(entry.key);
  }

  /**
   * Called after each successful config read of `scope`: entries of that scope whose key is no
   * longer produced by the config retire, and close once their in-flight operations end.
   * `liveKeys` is asked only when the pool holds an entry of that scope.
   */
  sync(scope: string, liveKeys: () => ReadonlySet<string>): void {
    let live: ReadonlySet<string> | undefined;
    for (const entry of this.#entries.values()) {
      if (!entry.scopes.has(scope) || (live ??= liveKeys()).has(entry.key)) continue;
      entry.scopes.delete(scope);
      if (entry.scopes.size === 0) this.#retire(entry);
    }
  }

  #retire(entry: Entry): void {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
    entry.retired = true;
    this.#settle(entry);
  }

  #settle(entry: Entry): void {
    if (entry.inFlight > 0) return;
    if (entry.retired || this.#closed) {
      if (entry.idleTimer) clearTimeout(entry.idleTimer);
      entry.idleTimer = undefined;
      this.#closeEntry(entry, this.#closed ? 'host closed' : 'config changed');
      return;
    }
    if (!entry.connection) return;
    entry.idleSince = Date.now();
    if (!entry.idleTimer) this.#armIdle(entry, this.idleTimeoutMs);
  }

  #armIdle(entry: Entry, delayMs: number): void {
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = undefined;
      // Busy again: the end of that operation arms a new timer.
      if (entry.inFlight > 0 || entry.retired || this.#closed) return;
      const left = entry.idleSince + this.idleTimeoutMs - Date.now();
      if (left > 0) {
        this.#armIdle(entry, left);
        return;
      }
      if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
      this.#closeEntry(entry, `idle for ${this.idleTimeoutMs} ms`);
    }, delayMs);
    entry.idleTimer.unref();
  }

  #closeEntry(entry: Entry, reason: string): void {
    this.#deleteLive(entry);
    // Not connected yet: the connect either fails (and cleans up itself) or ends here.
    const closing = entry.connection
      ? entry.connection.close(reason)
      : entry.promise.then(
          (connection) => connection.close(reason),
          () => {},
        );
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
  }

  /** Closes every connection, including ones still connecting or finishing. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#live];
    this.#live.clear();
    this.#liveKeys.clear();
    this.#entries.clear();
    await Promise.all([
      ...entries.map(async (entry) => {
        if (entry.idleTimer) clearTimeout(entry.idleTimer);
        // A connect in progress is abandoned, not awaited: a server that never answers
        // initialize must not hold close for the whole init timeout.
        entry.connect.abort();
        const connection = await entry.promise.catch(() => undefined);
        await connection?.close('host closed');
      }),
      ...this.#closing,
    ]);
  }
}

function closedError(): BerryError {
  return new BerryError('MCP_HOST_CLOSED', 'The host was closed; create a new one.');
}
