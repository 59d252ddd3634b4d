// Two `serve --http` processes on one Redis: a state made on one is loaded on the other, and a run that
// uses neither store nor load does not need Redis (it keeps working while Redis is down).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { modernHttp, runModern, type RunAnswer } from '../support/berry-serve-modern.js';
import { serveHttp, type HttpServe } from '../support/berry-serve.js';
import { type RedisServer, startRedis } from '../support/redis.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import { useStoreKey } from './helpers.js';

const TOKEN = 'fleet-state-token-0123456789abc';

async function runWith(client: ModernClient, code: string, state?: string): Promise<RunAnswer> {
  const result = await runModern(client, code, { state, timeoutMs: 60_000 });
  if (result.structuredContent === undefined) throw new Error(JSON.stringify(result));
  return result.structuredContent as RunAnswer;
}

describe('store: serve replicas share run states through Redis', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let redis: RedisServer;
  let fleetKey: ReturnType<typeof useStoreKey>;
  const serves: HttpServe[] = [];
  const clients: ModernClient[] = [];

  before(async () => {
    tmp = tempDir('berry-fleet-state-');
    writeConfig(tmp.dir, {});
    writeFileSync(join(tmp.dir, 'tokens'), `fleet ${TOKEN}\n`, { mode: 0o600 });
    redis = await startRedis();
    fleetKey = useStoreKey();
    for (let i = 0; i < 2; i++) {
      const serve = await serveHttp(['--config', 'mcp.json', '--token-file', 'tokens', '--workers', '0', '--store', redis.url, '--state-idle', '60'], {
        cwd: tmp.dir,
      });
      serves.push(serve);
      clients.push(await modernHttp(serve.url, TOKEN));
    }
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await Promise.all(serves.map((serve) => serve.close()));
    fleetKey.restore();
    await redis.stop();
    tmp.cleanup();
  });

  it('a state stored on one replica is loaded on the other, and written back there', async () => {
    const [a, b] = clients as [ModernClient, ModernClient];
    const first = await runWith(a, 'store("n", 1); return "stored";');
    assert.equal(first.ok, true, JSON.stringify(first));
    assert.ok(first.state);
    const second = await runWith(b, 'const n = load("n"); store("n", n + 1); return n;', first.state);
    assert.deepEqual([second.ok, second.result, second.state], [true, 1, first.state]);
    const third = await runWith(a, 'return load("n");', first.state);
    assert.equal(third.result, 2);
  });

  it('a run without store or load works with Redis down; one that loads fails BERRY_STORE_UNAVAILABLE within 5 s', async () => {
    const [a] = clients as [ModernClient];
    const made = await runWith(a, 'store("k", "v"); return 1;');
    await redis.stop({ keepData: true });
    try {
      const plain = await runWith(a, 'return 6 * 7;');
      assert.deepEqual([plain.ok, plain.result, plain.state], [true, 42, undefined]);
      const t0 = Date.now();
      const loading = await runWith(a, 'return load("k");', made.state);
      assert.equal(loading.error?.code, 'BERRY_STORE_UNAVAILABLE', JSON.stringify(loading));
      assert.ok(Date.now() - t0 < 5_000, `${Date.now() - t0} ms`);
      // A run that stores while Redis is down did its work, but says its state was not kept (and hands out no id).
      const storing = await runWith(a, 'store("lost", 1); return 2;');
      assert.deepEqual(
        [storing.ok, storing.result, storing.state, storing.stateError?.code],
        [true, 2, undefined, 'BERRY_STORE_UNAVAILABLE'],
        JSON.stringify(storing),
      );
    } finally {
      await redis.restart();
    }
    let loaded: RunAnswer | undefined;
    const t1 = Date.now();
    while (Date.now() - t1 < 10_000) {
      loaded = await runWith(a, 'return load("k");', made.state);
      if (loaded.ok) break;
    }
    assert.deepEqual([loaded?.ok, loaded?.result], [true, 'v']);
  });
});
