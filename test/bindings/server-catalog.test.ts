// server-catalog (live catalogs): list_changed invalidates at once; a tool added without notice is found by the
// one refresh an unknown name triggers; tools/list pagination faults (rejected cursor, endless
// pages, duplicate names).
import assert from 'node:assert/strict';
import { createMcpHost, type ServerDescription } from '../../src/bindings/index.js';
import { MAX_LIST_PAGES } from '../../src/bindings/catalog/list-pages.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry } from '../support/fixture-servers.js';
import { useTestHost } from '../support/test-host.js';

describe('live catalogs', function () {
  this.timeout(60_000);

  const t = useTestHost(
    {
      changing: faultEntry(),
      silent: faultEntry(),
      rejecting: faultEntry(['--tools=12', '--page-size=5', '--reject-cursor-once']),
      endless: faultEntry(['--endless-pages']),
      duplicates: faultEntry(['--duplicate-tools']),
      prompting: faultEntry(['--prompts']),
      broken: faultEntry(['--broken-prompts']),
    },
    { create: createMcpHost },
  );

  const toolNames = async (server: string): Promise<string[]> => Object.keys(((await t.host.describe({ server })) as ServerDescription).tools);

  it('sees a tool announced by tools/list_changed on the next describe and call', async () => {
    assert.ok(!(await toolNames('changing')).includes('fresh'));
    await t.host.call({ server: 'changing', tool: 'add_tool', arguments: { name: 'fresh' } });
    assert.ok((await toolNames('changing')).includes('fresh'));
    const result = await t.host.call({ server: 'changing', tool: 'fresh' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'fresh' }]);
  });

  it('refreshes a cached catalog once when a name is missing, so a silently added tool is callable', async () => {
    await toolNames('silent');
    await t.host.call({ server: 'silent', tool: 'add_tool', arguments: { name: 'quiet', silent: true } });
    assert.ok(!(await toolNames('silent')).includes('quiet'), 'no notification: the cached catalog stands');
    const result = await t.host.call({ server: 'silent', tool: 'quiet' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'quiet' }]);
    await assert.rejects(t.host.call({ server: 'silent', tool: 'never' }), (error: unknown) => isBerryError(error) && error.code === 'MCP_UNKNOWN_TOOL');
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
    const described = (await t.host.describe({ server: 'duplicates' })) as ServerDescription;
    const names = Object.keys(described.tools);
    assert.equal(names.length, new Set(names).size);
    assert.doesNotMatch(Object.values(described.tools).join('\n'), /a second tool with the same name/);
  });

  it('sees prompts and resources announced by their list_changed notifications', async () => {
    const before = (await t.host.describe({ server: 'prompting' })) as ServerDescription;
    assert.deepEqual(Object.keys(before.prompts), ['greet']);
    assert.deepEqual(Object.keys(before.resources), ['fixture://one']);
    await t.host.call({ server: 'prompting', tool: 'add_prompt', arguments: { name: 'wave' } });
    await t.host.call({ server: 'prompting', tool: 'add_resource', arguments: { uri: 'fixture://two' } });
    const after = (await t.host.describe({ server: 'prompting' })) as ServerDescription;
    assert.deepEqual(Object.keys(after.prompts), ['greet', 'wave']);
    assert.deepEqual(Object.keys(after.resources), ['fixture://one', 'fixture://two']);
    const prompt = await t.host.prompt({ server: 'prompting', name: 'wave' });
    assert.equal(prompt.messages.length, 1);
    const read = await t.host.read({ server: 'prompting', uri: 'fixture://two' });
    assert.deepEqual(read.contents, [{ uri: 'fixture://two', mimeType: 'text/plain', text: 'contents of fixture://two' }]);
    await assert.rejects(t.host.read({ server: 'prompting', uri: 'fixture://three' }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_UNKNOWN_RESOURCE');
      assert.match(error.message, /Its resources: (fixture:\/\/one, fixture:\/\/two|fixture:\/\/two, fixture:\/\/one)\./);
      return true;
    });
  });

  it('still describes the tools of a server whose prompts/list fails, with a warning', async () => {
    const described = (await t.host.describe({ server: 'broken' })) as ServerDescription;
    assert.ok('echo' in described.tools);
    assert.deepEqual(described.prompts, {});
    assert.match(described.warnings?.[0] ?? '', /^prompts\/list failed: .*prompt store offline/);
  });
});
