import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHost } from '../../src/host.js';
import { RunService, serveHttp } from '../../src/serve/index.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

describe('serveHttp: sessions', function () {
  this.timeout(30_000);

  it('closes a session whose client vanished without DELETE once it has been idle, and keeps a busy one', async () => {
    const tmp = tempDir('berry-serve-sessions-');
    const host = createHost({ cwd: tmp.dir, configPath: writeConfig(tmp.dir, {}) });
    const service = new RunService({ host });
    const serving = await serveHttp(service, { listen: { host: '127.0.0.1', port: 0 }, token: 't', sessionIdleMs: 400 });
    const headers = { authorization: 'Bearer t' };
    try {
      // A client that keeps its GET stream open is busy, however long it waits.
      const listening = new Client({ name: 'listening', version: '1' });
      await listening.connect(new StreamableHTTPClientTransport(new URL(serving.url), { requestInit: { headers } }));
      // One that only ever POSTs and then disappears: initialize by hand, no GET stream, no DELETE.
      const init = await fetch(serving.url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gone', version: '1' } },
        }),
      });
      const gone = init.headers.get('mcp-session-id')!;
      await init.body?.cancel();
      const ping = () =>
        fetch(serving.url, {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': gone,
            'mcp-protocol-version': '2025-06-18',
          },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        });
      assert.equal((await ping()).status, 202);
      // Past the idle time (and a sweep): the silent session is gone, the listening one is not.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal((await ping()).status, 404);
      await listening.ping();
      await listening.close();
    } finally {
      await serving.close();
      await service.close();
      await host.close();
      tmp.cleanup();
    }
  });
});
