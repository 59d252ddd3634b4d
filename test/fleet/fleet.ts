// Three `serve --http` replicas behind nginx (the documented configuration), and 2026-07-28
// clients from distinct loopback addresses spread over them by nginx's `hash $remote_addr`.
import { join } from 'node:path';
import type { Client, ClientOptions } from '@modelcontextprotocol/client';
import { serveHttp, type HttpServe } from '../support/berry-serve.js';
import { modernHttp, resultOf, runModern } from '../support/berry-serve-modern.js';
import { startNginx, type Nginx } from '../support/nginx.js';
import { tallyServerPath } from '../support/paths.js';
import { fetchFrom, loopbackAddress, type SourceFetch } from '../support/source-address.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

export const FLEET_TOKEN = 'fleet-token';
export const REPLICAS = ['a', 'b', 'c'] as const;

export interface Fleet {
  readonly dir: string;
  /** The tally servers' shared event log: `start ID REPLICA` when a call reached the tool, `done ID`. */
  readonly eventLog: string;
  readonly replicas: HttpServe[];
  readonly nginx: Nginx;
  close(): Promise<void>;
}

export interface FleetOptions {
  /** More mcp.json entries beside `tally`. */
  readonly servers?: Record<string, unknown>;
  /** More serve arguments for every replica (e.g. `--store URL`). */
  readonly args?: readonly string[];
  /** More environment for each replica (e.g. BERRY_STORE_KEY; a config home of its own). */
  readonly env?: (replica: string) => Record<string, string>;
}

/** The replicas (each with BERRY_REPLICA=its name, one shared token and config) and nginx in front. */
export async function startFleet(prefix: string, options: FleetOptions = {}): Promise<Fleet> {
  const tmp = tempDir(prefix);
  const eventLog = join(tmp.dir, 'events.log');
  writeConfig(tmp.dir, { tally: { command: process.execPath, args: [tallyServerPath], env: { FIXTURE_EVENT_LOG: eventLog } }, ...options.servers });
  const replicas = await Promise.all(
    REPLICAS.map((name) =>
      serveHttp(['--config', 'mcp.json', ...(options.args ?? [])], {
        cwd: tmp.dir,
        env: { ...options.env?.(name), BERRY_SERVE_TOKEN: FLEET_TOKEN, BERRY_REPLICA: name },
      }),
    ),
  );
  const upstreams = replicas.map((r) => new URL(r.url).host);
  let nginx: Nginx;
  try {
    nginx = await startNginx(upstreams);
  } catch (error) {
    await Promise.all(replicas.map((r) => r.close()));
    tmp.cleanup();
    throw error;
  }
  return {
    dir: tmp.dir,
    eventLog,
    replicas,
    nginx,
    async close() {
      await nginx.stop();
      await Promise.all(replicas.map((r) => r.close()));
      tmp.cleanup();
    },
  };
}

/** A 2026 client from its own source address, and the replica nginx sends it to. */
export interface FleetClient {
  readonly address: string;
  readonly client: Client;
  readonly replica: string;
  close(): Promise<void>;
}

/** A script whose answer is the replica that ran it, counted in the tally as `id`. */
export const whereScript = (id: string, ms = 0): string =>
  `return (await tools.mcp_call({ server: 'tally', tool: 'tally', arguments: { id: ${JSON.stringify(id)}, ms: ${ms} } })).structuredContent.replica;`;

/**
 * Clients from 127.0.0.2, 127.0.0.3, … until each replica has `perReplica` of them (nginx's hash
 * decides; each address is probed with one run). Clients beyond a replica's share are closed.
 */
export async function spreadClients(
  fleet: Fleet,
  perReplica: number,
  options: { capabilities?: ClientOptions['capabilities']; maxAddresses?: number } = {},
): Promise<FleetClient[]> {
  const kept: FleetClient[] = [];
  const count = (replica: string): number => kept.filter((c) => c.replica === replica).length;
  const max = options.maxAddresses ?? 60;
  for (let next = 0; next < max && REPLICAS.some((r) => count(r) < perReplica); next += 4) {
    const batch = await Promise.all([0, 1, 2, 3].map((k) => probe(fleet, loopbackAddress(next + k), options.capabilities)));
    for (const c of batch) {
      if (count(c.replica) < perReplica) kept.push(c);
      else await c.close();
    }
  }
  if (REPLICAS.some((r) => count(r) < perReplica)) {
    await Promise.all(kept.map((c) => c.close()));
    throw new Error(`nginx spread ${max} addresses unevenly: ${JSON.stringify(REPLICAS.map((r) => [r, count(r)]))}`);
  }
  return kept;
}

async function probe(fleet: Fleet, address: string, capabilities: ClientOptions['capabilities'] | undefined): Promise<FleetClient> {
  const source: SourceFetch = fetchFrom(address);
  const client = await modernHttp(fleet.nginx.url, FLEET_TOKEN, { fetch: source.fetch, ...(capabilities ? { capabilities } : {}) });
  const close = async (): Promise<void> => {
    await client.close().catch(() => {});
    await source.close().catch(() => {});
  };
  try {
    const replica = resultOf(await runModern(client, whereScript(`probe-${address}`)));
    if (typeof replica !== 'string') throw new Error(`probe from ${address}: no replica in the answer`);
    return { address, client, replica, close };
  } catch (error) {
    await close();
    throw error;
  }
}
