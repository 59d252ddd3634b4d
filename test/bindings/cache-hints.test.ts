// ttlMs and cacheScope on tools/list (2026-07-28) in the live and the saved catalogs: a list is
// listed again past its ttlMs, `ttlMs: 0` promises nothing (the list is kept until list_changed,
// not asked for every time), and a saved `public` list serves another credential, a `private` never.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createMcpHost, type McpHost } from '../../src/bindings/index.js';
import { startV2Http, type PortFixture } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

async function toolNames(host: McpHost, server: string): Promise<{ names: string[]; cached: boolean }> {
  const listed = (await host.list({ server })).servers[0];
  assert.ok(listed?.status === 'connected', JSON.stringify(listed));
  return { names: listed.tools.map((tool) => tool.name), cached: listed.cached !== undefined };
}

describe('cache hints on tool lists (ttlMs, cacheScope)', function () {
  this.timeout(30_000);
  const fixtures: PortFixture[] = [];
  const hosts: McpHost[] = [];
  const tmp = tempDir('berry-cache-hints-');
  const host = (servers: Record<string, unknown>, name: string, catalogs?: string): McpHost => {
    const configPath = writeConfig(join(tmp.dir, name), servers);
    const made = createMcpHost({ cwd: tmp.dir, configPath, ...(catalogs ? { savedCatalogs: { dir: catalogs } } : {}) });
    hosts.push(made);
    return made;
  };
  const serve = async (args: string[]): Promise<PortFixture> => {
    const fixture = await startV2Http(['--modern-only', '--silent-changes', ...args]);
    fixtures.push(fixture);
    return fixture;
  };
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });
  after(async () => {
    await Promise.all(fixtures.map((f) => f.close()));
    tmp.cleanup();
  });

  it('lists again once the live list is older than its ttlMs', async () => {
    const fixture = await serve(['--ttl-ms=400']);
    const h = host({ s: { url: fixture.url } }, 'ttl');
    assert.ok(!(await toolNames(h, 's')).names.includes('newt'));
    await h.call({ server: 's', tool: 'add_tool', arguments: { name: 'newt' } });
    assert.ok(!(await toolNames(h, 's')).names.includes('newt'), 'still fresh: the cached list answers');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok((await toolNames(h, 's')).names.includes('newt'), 'past ttlMs: listed again');
  });

  it('ttlMs 0 promises nothing: the list is kept, not asked for on every use', async () => {
    const fixture = await serve(['--ttl-ms=0']);
    const h = host({ s: { url: fixture.url } }, 'zero');
    await toolNames(h, 's');
    await h.call({ server: 's', tool: 'add_tool', arguments: { name: 'newt' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(!(await toolNames(h, 's')).names.includes('newt'));
  });

  for (const scope of ['public', 'private'] as const) {
    it(`a saved ${scope} list ${scope === 'public' ? 'serves' : 'never serves'} another credential of the same server`, async () => {
      const fixture = await serve([`--cache-scope=${scope}`, '--ttl-ms=60000']);
      const catalogs = join(tmp.dir, `catalogs-${scope}`);
      const first = host({ s: { url: fixture.url, headers: { 'X-Credential': 'alice' } } }, `${scope}-a`, catalogs);
      assert.equal((await toolNames(first, 's')).cached, false);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = host({ s: { url: fixture.url, headers: { 'X-Credential': 'alice' } } }, `${scope}-a2`, catalogs);
      assert.equal((await toolNames(again, 's')).cached, true, 'the same credential reads its own saved list');
      const other = host({ s: { url: fixture.url, headers: { 'X-Credential': 'bob' } } }, `${scope}-b`, catalogs);
      assert.equal((await toolNames(other, 's')).cached, scope === 'public');
    });
  }
});
