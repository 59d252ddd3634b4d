import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createHost, type Host } from '../../src/host.js';
import { loneClient } from '../../src/serve/queue.js';
import { RunService } from '../../src/serve/server.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

/** mocha runs with --expose-gc (.mocharc.json and test:only). */
function heapAfterCollection(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  assert.ok(gc, 'run mocha with --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

// A 2025-11-25 session's state is the session's: made with it, gone with it.
describe('serve: a 2025 session’s state goes with the session', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let host: Host;
  let service: RunService;

  before(() => {
    tmp = tempDir('berry-session-state-');
    writeConfig(tmp.dir, {});
    host = createHost({ cwd: tmp.dir, configPath: join(tmp.dir, 'mcp.json') });
    service = new RunService({ host, workers: 0 });
  });
  after(async () => {
    await service.close();
    await host.close();
    tmp.cleanup();
  });

  async function session(): Promise<{ run(code: string): Promise<unknown>; close(): Promise<void> }> {
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const server = service.legacyServer(loneClient(4));
    await server.connect(serverSide);
    const client = new Client({ name: 'session-state', version: '1' });
    await client.connect(clientSide);
    return {
      run: async (code) => ((await client.callTool({ name: 'run', arguments: { code } })) as CallToolResult).structuredContent?.['result'],
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }

  it('keeps 12 MB for its runs while it lasts, and frees them when it ends', async () => {
    const baseline = heapAfterCollection();
    // Three sessions of 4 MB each, so a megabyte of noise from the rest of the suite cannot hide a
    // session kept after its end. They live only inside this function: nothing of the test holds them.
    const held = await (async () => {
      const sessions = [await session(), await session(), await session()];
      for (const one of sessions) {
        assert.equal(await one.run(`for (let i = 0; i < 4; i++) store('v' + i, String(i).repeat(1000000)); return 'stored'`), 'stored');
        assert.equal(await one.run(`return load('v3').length`), 1_000_000);
      }
      const holding = heapAfterCollection();
      const other = await session();
      assert.equal(await other.run(`return load('v2') === undefined`), true);
      await other.close();
      for (const one of sessions) await one.close();
      return holding;
    })();
    assert.ok(held - baseline > 11_000_000, `the sessions hold ${held - baseline} bytes more`);
    const after = heapAfterCollection();
    assert.ok(held - after > 10_000_000, `${held - after} bytes came back when the sessions ended`);
  });
});
