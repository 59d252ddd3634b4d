// The server/discover probe has its own budget inside the start's: a third of it, at most 10 s
// (era.ts). Entries here set `timeout: 6`, so the start has 6 s and the probe 2 s. A 2025 server
// that never answers the probe (http-server.mjs and fault-server.mjs --silent-discover) still gets
// initialize and connects under "auto"; a slow but honest one answering within the budget is heard;
// one answering after it is ignored without harm.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogEvent } from '../../src/index.js';
import { startHttpFixture, startOAuthFixture, startV2Http, type HttpFixture, type OAuthFixture, type PortFixture } from '../support/fixture-servers.js';
import { setFault, testHosts } from '../auth/helpers.js';
import { writeConfig } from '../support/write-config.js';
import { faultServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

const START_S = 6;
const PROBE_MS = 2000;

describe('the server/discover probe has its own budget inside the start cap', function () {
  this.timeout(60_000);
  let silentHttp: HttpFixture;
  let lateHttp: HttpFixture;
  let slowModern: PortFixture;
  let slowerModern: PortFixture;
  let events = '';
  const logs: LogEvent[] = [];
  const t = useTestHost(
    async (dir) => {
      events = join(dir, 'events.log');
      silentHttp = await startHttpFixture(['--silent-discover']);
      lateHttp = await startHttpFixture([`--silent-discover=${PROBE_MS + 1500}`]);
      slowModern = await startV2Http(['--modern-only', `--slow-discover=${PROBE_MS / 2}`]);
      slowerModern = await startV2Http(['--modern-only', `--slow-discover=${PROBE_MS + 1000}`]);
      const stdio = (flag: string): Record<string, unknown> => ({
        command: process.execPath,
        args: [faultServerPath, flag],
        env: { FIXTURE_EVENT_LOG: events },
        timeout: START_S,
      });
      return {
        silentHttp: { url: silentHttp.url, timeout: START_S },
        silentStdio: stdio('--silent-discover'),
        lateHttp: { url: lateHttp.url, timeout: START_S },
        lateStdio: stdio(`--silent-discover=${PROBE_MS + 1500}`),
        slowModern: { url: slowModern.url, timeout: START_S },
        slowerModern: { url: slowerModern.url, timeout: START_S },
        pinned: { url: silentHttp.url, timeout: START_S, protocol: '2025-11-25' },
      };
    },
    { options: { onLog: (event) => logs.push(event) } },
  );
  after(async () => {
    await Promise.all([silentHttp?.close(), lateHttp?.close(), slowModern?.close(), slowerModern?.close()]);
  });

  /** Connects `server`, checks the revision it speaks and that a call works, and returns how long the connect took. */
  async function connects(server: string, protocol: string): Promise<number> {
    const started = Date.now();
    const status = (await t.host.list({ server })).servers[0];
    const ms = Date.now() - started;
    assert.ok(status?.status === 'connected', `${server}: ${JSON.stringify(status)}`);
    assert.equal(status.protocol, protocol, server);
    assert.equal((await t.host.call({ server, tool: 'echo', arguments: { text: 'hi' } })).content[0]?.type, 'text');
    return ms;
  }

  for (const server of ['silentHttp', 'silentStdio']) {
    it(`${server}: a 2025 server that never answers the probe connects in 2025-11-25 within the start cap`, async () => {
      const ms = await connects(server, '2025-11-25');
      assert.ok(ms >= PROBE_MS - 100 && ms < START_S * 1000, `${ms} ms`);
      if (server === 'silentHttp') {
        assert.equal((await silentHttp.stats()).discovers, 1, 'probed once');
        assert.ok(
          logs.some(
            (e) => e.server === server && e.message === 'no answer to server/discover within 2 s; speaking 2025-11-25 (pin "protocol" to skip the probe)',
          ),
          JSON.stringify(logs.filter((e) => e.server === server)),
        );
      } else {
        assert.deepEqual(
          readFileSync(events, 'utf8')
            .split('\n')
            .filter((l) => l === 'discover'),
          ['discover'],
          'probed once',
        );
      }
    });
  }

  it('the same server pinned to 2025-11-25 is never probed', async () => {
    const before = (await silentHttp.stats()).discovers;
    await connects('pinned', '2025-11-25');
    assert.equal((await silentHttp.stats()).discovers, before);
  });

  it('a slow but honest 2026-07-28 server answering within the budget is heard: it connects stateless', async () => {
    const ms = await connects('slowModern', '2026-07-28');
    assert.ok(ms >= PROBE_MS / 2 - 100, `${ms} ms`);
  });

  it('a 2026-07-28-only server slower than the budget refuses initialize, and is asked again within the start cap', async () => {
    const ms = await connects('slowerModern', '2026-07-28');
    assert.ok(ms < START_S * 1000, `${ms} ms`);
    assert.ok(
      logs.some((e) => e.server === 'slowerModern' && /^the server speaks 2026-07-28 only, and did not answer server\/discover in time/.test(e.message)),
    );
  });

  for (const server of ['lateHttp', 'lateStdio']) {
    it(`${server}: an answer to the probe after its budget, once initialize went out, changes nothing`, async () => {
      const before = logs.length;
      await connects(server, '2025-11-25');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.equal((await t.host.call({ server, tool: 'echo', arguments: { text: 'still' } })).content.length, 1);
      const mine = logs.slice(before).filter((e) => e.server === server);
      const after = mine.slice(mine.findIndex((e) => e.kind === 'initialized'));
      assert.deepEqual(
        after.filter((e) => e.kind === 'error' || e.kind === 'closed'),
        [],
        JSON.stringify(mine),
      );
      if (server === 'lateStdio')
        assert.ok(
          mine.some((e) => e.message === 'the server answered server/discover after the probe gave up; ignored'),
          JSON.stringify(mine),
        );
    });
  }
});

describe('the probe budget counts the silence of the server, not the OAuth work around the probe', function () {
  this.timeout(60_000);
  let oauth: OAuthFixture;
  const hosts = testHosts();
  let configPath = '';
  before(async () => {
    // Access tokens live 4 s: refreshed before a request past half of that.
    oauth = await startOAuthFixture(['--token-ttl=4']);
  });
  after(async () => {
    await hosts.closeAll();
    await oauth?.close();
  });
  const t = useTestHost(async (dir) => {
    configPath = writeConfig(join(dir, 'oauth'), { docs: { url: oauth.url, timeout: START_S } });
    return {};
  });

  it('a 2025 server behind OAuth that never answers server/discover: sign-in, then a refresh, inside the probe, and it connects each time', async () => {
    await setFault(oauth.base, 'discover=silent');
    const tokens = join(t.dir, 'tokens');
    const first = hosts.open(configPath, tokens);
    assert.match(JSON.stringify(await first.host.call({ server: 'docs', tool: 'whoami' })), /read/);
    assert.ok(
      first.logs.some((e) => /^no answer to server\/discover within 2 s/.test(e.message)),
      JSON.stringify(first.logs),
    );
    await first.host.close();
    // Past half the token's life: the next connect refreshes it before the probe goes out.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const before = await oauth.stats();
    const again = hosts.open(configPath, tokens, false);
    assert.match(JSON.stringify(await again.host.call({ server: 'docs', tool: 'whoami' })), /read/);
    // Refreshed before the probe (and again before initialize: 2 s of probe is half this token's life).
    assert.ok((await oauth.stats()).refreshes > before.refreshes);
    assert.ok(
      again.logs.some((e) => /^no answer to server\/discover within 2 s/.test(e.message)),
      JSON.stringify(again.logs),
    );
  });
});
