/**
 * How the host opens a connection for the pool: with its machine, limits, sign-in options and
 * elicitation handler, the era its key negotiated before, and the start-backoff record updated
 * by the outcome (docs/reliability.md).
 */
import type { ResolvedServerConfig } from '../../config/index.js';
import type { Machine } from '../../remote/machine/index.js';
import type { ServerConnection } from '../connection/connection.js';
import type { ConnectionAuthOptions } from '../connection/start/auth-options.js';
import { EraMemory } from '../connection/start/era.js';
import type { ElicitationHandler } from '../handlers.js';
import type { LogSink } from '../log.js';
import type { ServerTextGate } from '../server-text/gate.js';
import type { StartBackoff } from './start-backoff.js';
import { traceStart } from '../telemetry/start-spans.js';

export interface OpenerOptions {
  readonly machine: Machine;
  readonly log: LogSink;
  readonly maxMessageBytes: number | undefined;
  /** The gate of the config the host read last. */
  readonly gate: () => ServerTextGate;
  readonly auth: ConnectionAuthOptions;
  readonly onElicitation: ElicitationHandler | undefined;
  readonly backoff: StartBackoff;
}

export class ConnectionOpener {
  readonly #options: OpenerOptions;
  /** The era each connection key negotiated: probed once, adopted by its reconnects. */
  readonly #eras = new EraMemory();

  constructor(options: OpenerOptions) {
    this.#options = options;
  }

  /** Opens the connection for `config` under pool key `key`, and records how its start went. */
  async open(config: ResolvedServerConfig, key: string, signal: AbortSignal): Promise<ServerConnection> {
    const { machine, log, maxMessageBytes, gate, auth, onElicitation, backoff } = this.#options;
    try {
      // Loaded on the first connection: the SDK is most of berry-mcp's start-up time.
      const { openConnection } = await import('../connection/start/open.js');
      const connection = await traceStart(
        config,
        machine.identity,
        (text) => gate().piece(text),
        () =>
          openConnection({
            machine,
            config,
            log,
            ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
            gate,
            auth,
            onElicitation,
            era: { memory: this.#eras, key },
            signal,
          }),
      );
      backoff.succeeded(key);
      return connection;
    } catch (error) {
      // A connect abandoned by its callers (or by close) says nothing about the server.
      if (!signal.aborted) backoff.failed(key, error);
      throw error;
    }
  }
}
