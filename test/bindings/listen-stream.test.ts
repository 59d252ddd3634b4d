// tools/list_changed of a 2026-07-28 server comes over subscriptions/listen: a stream the server
// will not keep open is given up after a few attempts, with a warning naming the server, and the
// connection keeps working.
import assert from 'node:assert/strict';
import type { LogEvent } from '../../src/index.js';
import { startV2Http, type PortFixture } from '../support/fixture-servers.js';
import { v2ServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

describe('subscriptions/listen a server keeps refusing', function () {
  this.timeout(30_000);
  let http: PortFixture;
  const logs: LogEvent[] = [];
  const t = useTestHost(
    async () => {
      http = await startV2Http(['--modern-only', '--no-subscriptions']);
      return {
        web: { url: http.url },
        pipe: { command: process.execPath, args: [v2ServerPath, '--modern-only', '--no-subscriptions'] },
      };
    },
    { options: { onLog: (event) => logs.push(event) } },
  );
  after(async () => http?.close());

  for (const server of ['web', 'pipe']) {
    it(`${server}: gives the stream up after 3 attempts, naming the server; calls still work`, async () => {
      await t.host.list({ server });
      const deadline = Date.now() + 10_000;
      const given = (): LogEvent | undefined => logs.find((e) => e.server === server && /did not stay open \(3 attempts/.test(e.message));
      while (!given() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.match(given()?.message ?? 'no warning', new RegExp(`subscriptions/listen stream of server "${server}"`));
      const echo = await t.host.call({ server, tool: 'echo', arguments: { text: 'still' } });
      assert.deepEqual(echo.content, [{ type: 'text', text: 'still' }]);
    });
  }
});
