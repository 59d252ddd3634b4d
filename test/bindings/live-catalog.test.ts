// Live catalogs: list_changed invalidates at once; a tool added without notice is found by the
// one refresh an unknown name triggers; tools/list pagination faults (rejected cursor, endless
// pages, duplicate names).
import assert from 'node:assert/strict';
import { createMcpHost, type McpHost, type ServerDescription } from '../../src/bindings/index.js';
import { MAX_LIST_PAGES } from '../../src/bindings/list-pages.js';
import { isBerryError } from '../../src/errors.js';
import { writeConfig } from '../fixtures/servers.js';
import { faultEntry, tempDir } from './helpers.js';

describe('live catalogs', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let host: McpHost;

  before(() => {
    tmp = tempDir();
    const config = writeConfig(tmp.dir, {
      changing: faultEntry(),
      silent: faultEntry(),
      rejecting: faultEntry(['--tools=12', '--page-size=5', '--reject-cursor-once']),
      endless: faultEntry(['--endless-pages']),
      duplicates: faultEntry(['--duplicate-tools']),
    });
    host = createMcpHost({ cwd: tmp.dir, configPath: config });
  });

  after(async () => {
    await host.close();
    tmp.cleanup();
  });

  const toolNames = async (server: string): Promise<string[]> => Object.keys(((await host.describe({ server })) as ServerDescription).tools);

  it('sees a tool announced by tools/list_changed on the next describe and call', async () => {
    assert.ok(!(await toolNames('changing')).includes('fresh'));
    await host.call({ server: 'changing', tool: 'add_tool', arguments: { name: 'fresh' } });
    assert.ok((await toolNames('changing')).includes('fresh'));
    const result = await host.call({ server: 'changing', tool: 'fresh' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'fresh' }]);
  });

  it('refreshes a cached catalog once when a name is missing, so a silently added tool is callable', async () => {
    await toolNames('silent');
    await host.call({ server: 'silent', tool: 'add_tool', arguments: { name: 'quiet', silent: true } });
    assert.ok(!(await toolNames('silent')).includes('quiet'), 'no notification: the cached catalog stands');
    const result = await host.call({ server: 'silent', tool: 'quiet' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'quiet' }]);
    await assert.rejects(host.call({ server: 'silent', tool: 'never' }), (error: unknown) => isBerryError(error) && error.code === 'MCP_UNKNOWN_TOOL');
  });

  it('restarts a listing once when the server rejects its own cursor', async () => {
    const names = await toolNames('rejecting');
    assert.equal(names.filter((n) => /^t\d{4}$/.test(n)).length, 12);
  });

  it(`stops an endless listing at ${MAX_LIST_PAGES} pages`, async () => {
    const names = await toolNames('endless');
    assert.equal(names.length, MAX_LIST_PAGES);
  });

  it('drops duplicate tool names across pages (the first wins)', async () => {
    const described = (await host.describe({ server: 'duplicates' })) as ServerDescription;
    const names = Object.keys(described.tools);
    assert.equal(names.length, new Set(names).size);
    assert.doesNotMatch(Object.values(described.tools).join('\n'), /a second tool with the same name/);
  });
});
