// Who failed when an HTTP server does not start (style rule 16): an endpoint that fails every
// request (test/fixtures/broken-http.mjs: a 500, a proxy's 502 page, a 404 page, a 200 page that is
// no MCP, JSON that is no JSON-RPC, a reset socket) is MCP_CONNECT_FAILED naming what it answered,
// whether the entry probes server/discover (auto) or pins a revision; only a server that answers in
// MCP that it speaks no revision berry-mcp offers is MCP_PROTOCOL_VERSION_UNSUPPORTED.
import assert from 'node:assert/strict';
import { startBrokenHttp, startHttpFixture, type BrokenHttpFixture, type HttpFixture } from '../support/fixture-servers.js';
import { useTestHost } from '../support/test-host.js';

const MODES: Record<string, RegExp> = {
  500: /: HTTP 500 Internal Server Error to POST \(the server failed: its own error, not berry-mcp's; .*\): fixture error 500$/,
  '502-html': /: HTTP 502 Bad Gateway to POST \(the server failed: .*\): <html><head><title>502 Bad Gateway/,
  '404-html': /: HTTP 404 Not Found to POST \(no MCP endpoint at this URL: check "url", including its path \(often \/mcp\)\)/,
  '200-html': /: Unexpected content type: text\/html: the answer is not MCP \(JSON or an event stream\); check that "url" is the MCP endpoint$/,
  '200-json': /: malformed answer: /,
  reset: /: fetch failed: other side closed$/,
};
const PROTOCOLS = ['auto', '2025-11-25', '2026-07-28'] as const;

describe('who failed when an HTTP server does not start', function () {
  this.timeout(60_000);
  const broken: Record<string, BrokenHttpFixture> = {};
  let speaks2025: HttpFixture;
  const t = useTestHost(async () => {
    for (const mode of Object.keys(MODES)) broken[mode] = await startBrokenHttp(mode);
    speaks2025 = await startHttpFixture();
    const entries: Record<string, unknown> = { pinnedAway: { url: speaks2025.url, protocol: '2026-07-28' } };
    for (const [mode, fixture] of Object.entries(broken)) {
      for (const protocol of PROTOCOLS) entries[`${mode}-${protocol}`] = { url: fixture.url, ...(protocol === 'auto' ? {} : { protocol }) };
    }
    return entries;
  });
  after(async () => {
    await Promise.all([...Object.values(broken).map((f) => f.close()), speaks2025?.close()]);
  });

  it('an endpoint that fails every request is MCP_CONNECT_FAILED naming what it answered, probed or pinned', async () => {
    const { servers } = await t.host.list({});
    for (const mode of Object.keys(MODES)) {
      for (const protocol of PROTOCOLS) {
        const status = servers.find((s) => s.name === `${mode}-${protocol}`);
        assert.ok(status?.status === 'error', `${mode} ${protocol}: ${JSON.stringify(status)}`);
        assert.equal(status.error.code, 'MCP_CONNECT_FAILED', `${mode} ${protocol}: ${status.error.message}`);
        assert.match(status.error.message, MODES[mode]!, `${mode} ${protocol}`);
      }
    }
  });

  it('a 2025 server that answers the probe in MCP is still the revision mismatch when pinned to 2026-07-28', async () => {
    const { servers } = await t.host.list({ server: 'pinnedAway' });
    const status = servers[0];
    assert.ok(status?.status === 'error' && status.error.code === 'MCP_PROTOCOL_VERSION_UNSUPPORTED', JSON.stringify(status));
    assert.match(status.error.message, /this entry pins "protocol": "2026-07-28"/);
  });
});
