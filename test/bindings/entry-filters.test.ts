// A tool filter and a server's name belong to the config entry of each operation, never to the
// pooled connection: the file is reread every operation, and entries with the same resolved config
// ("twins") share one connection.
import assert from 'node:assert/strict';
import { createMcpHost, type McpHost, type ProgressEvent, type ServerDescription, type ToolDescription } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry, whoami } from '../support/fixture-servers.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

async function unknownTool(promise: Promise<unknown>, server: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isBerryError(error) && error.code === 'MCP_UNKNOWN_TOOL', String(error));
    assert.match(error.message, new RegExp(`^Server "${server}" has no tool "echo" available: it is in "disabledTools"`));
    return true;
  });
}

function listedTools(list: Awaited<ReturnType<McpHost['list']>>, server: string): string[] {
  const status = list.servers.find((s) => s.name === server);
  assert.ok(status?.status === 'connected', JSON.stringify(status));
  return status.tools.map((t) => t.name);
}

describe('tool filters and names come from the entry of each operation', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let host: McpHost;

  beforeEach(() => {
    tmp = tempDir();
  });

  afterEach(async () => {
    await host.close();
    tmp.cleanup();
  });

  it('a tool added to disabledTools while the connection is open is refused by the very next call', async () => {
    writeConfig(tmp.dir, { spy: faultEntry() });
    host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    const pid = whoami(await host.call({ server: 'spy', tool: 'whoami', arguments: {} })).pid;
    assert.equal((await host.call({ server: 'spy', tool: 'echo', arguments: { text: 'before' } })).isError, undefined);

    writeConfig(tmp.dir, { spy: faultEntry([], { disabledTools: ['echo'] }) });
    await unknownTool(host.call({ server: 'spy', tool: 'echo', arguments: { text: 'after' } }), 'spy');
    await unknownTool(host.describe({ server: 'spy', tool: 'echo' }), 'spy');
    const described = (await host.describe({ server: 'spy' })) as ServerDescription;
    assert.ok(!('echo' in described.tools) && 'whoami' in described.tools, Object.keys(described.tools).join());
    assert.ok(!listedTools(await host.list({}), 'spy').includes('echo'));
    assert.doesNotMatch(await host.typings({ server: 'spy' }), /"echo"/);
    // The filter is not part of the resolved config's fingerprint: the same connection served it all.
    assert.equal(whoami(await host.call({ server: 'spy', tool: 'whoami', arguments: {} })).pid, pid);

    writeConfig(tmp.dir, { spy: faultEntry() });
    assert.equal((await host.call({ server: 'spy', tool: 'echo', arguments: { text: 'again' } })).isError, undefined);
  });

  it('a twin that gives up waiting for a shared tools/list is told in its own name', async () => {
    writeConfig(tmp.dir, { spy: faultEntry(['--slow-list=1500']), filtered: faultEntry(['--slow-list=1500'], { disabledTools: ['echo'] }) });
    host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
    await host.call({ server: 'spy', tool: 'add_tool', arguments: { name: 'extra' } });
    // add_tool's tools/list_changed emptied the shared cache: the next describe waits for a new listing.
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    await assert.rejects(host.describe({ server: 'filtered', tool: 'whoami' }, { signal: ac.signal }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_CANCELLED', String(error));
      assert.equal(error.message, 'Listing tools of server "filtered" was cancelled.');
      return true;
    });
  });

  for (const opener of ['spy', 'filtered'] as const) {
    it(`twins with one command and different filters each keep their own filter and name (opened by ${opener})`, async () => {
      writeConfig(tmp.dir, { spy: faultEntry(), filtered: faultEntry([], { disabledTools: ['echo'] }) });
      host = createMcpHost({ cwd: tmp.dir, configPath: 'mcp.json' });
      const first = whoami(await host.call({ server: opener, tool: 'whoami', arguments: {} })).pid;
      const other = opener === 'spy' ? 'filtered' : 'spy';
      assert.equal(whoami(await host.call({ server: other, tool: 'whoami', arguments: {} })).pid, first, 'twins share one connection');

      const echoed = await host.call({ server: 'spy', tool: 'echo', arguments: { text: 'hi' } });
      assert.equal((echoed.content[0] as { text: string }).text, 'hi');
      await unknownTool(host.call({ server: 'filtered', tool: 'echo', arguments: { text: 'no' } }), 'filtered');
      await unknownTool(host.describe({ server: 'filtered', tool: 'echo' }), 'filtered');

      const spy = (await host.describe({ server: 'spy' })) as ServerDescription;
      const filtered = (await host.describe({ server: 'filtered' })) as ServerDescription;
      assert.equal(spy.server, 'spy');
      assert.equal(filtered.server, 'filtered');
      assert.ok('echo' in spy.tools);
      assert.ok(!('echo' in filtered.tools) && 'whoami' in filtered.tools);
      assert.equal(((await host.describe({ server: 'filtered', tool: 'whoami' })) as ToolDescription).server, 'filtered');
      assert.equal(((await host.describe({ server: 'spy', tool: 'echo' })) as ToolDescription).server, 'spy');

      const list = await host.list({});
      assert.ok(listedTools(list, 'spy').includes('echo'));
      assert.ok(!listedTools(list, 'filtered').includes('echo') && listedTools(list, 'filtered').includes('whoami'));

      assert.match(await host.typings({ server: 'spy' }), /"echo"/);
      const filteredTypes = await host.typings({ server: 'filtered' });
      assert.match(filteredTypes, /"filtered"/);
      assert.doesNotMatch(filteredTypes, /"echo"/);

      // Progress and errors of a call name the entry it was made through.
      const events: ProgressEvent[] = [];
      await host.call({ server: other, tool: 'progress', arguments: { steps: 2, intervalMs: 200 } }, { onProgress: (e) => events.push(e) });
      assert.deepEqual(
        events.map((e) => e.server),
        [other, other],
      );
      const ac = new AbortController();
      const sleeping = host.call({ server: other, tool: 'sleep', arguments: { ms: 10_000 } }, { signal: ac.signal });
      setTimeout(() => ac.abort(), 100);
      await assert.rejects(sleeping, (error: unknown) => {
        assert.ok(isBerryError(error) && error.code === 'MCP_CANCELLED', String(error));
        assert.match(error.message, new RegExp(`on server "${other}"`));
        return true;
      });
    });
  }
});
