// enabledTools / disabledTools: a filtered tool does not exist for list, describe, call or typings.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ServerDescription } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { filesystemPath, memoryPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

describe('tool filters', function () {
  this.timeout(60_000);

  const t = useTestHost((dir) => ({
    files: { command: process.execPath, args: [filesystemPath, dir], enabledTools: ['read_text_file', 'list_directory', 'no_such_tool'] },
    memory: {
      command: process.execPath,
      args: [memoryPath],
      env: { MEMORY_FILE_PATH: join(dir, 'm.jsonl') },
      disabledTools: ['delete_entities', 'delete_observations', 'delete_relations'],
    },
  }));

  it('lists only the enabled tools, with a warning for a filter name the server lacks', async () => {
    const { servers } = await t.host.list({});
    const files = servers.find((s) => s.name === 'files')!;
    assert.ok(files.status === 'connected');
    assert.deepEqual(files.tools.map((t) => t.name).sort(), ['list_directory', 'read_text_file']);
    assert.deepEqual(files.warnings, ['enabledTools names "no_such_tool", which the server does not have']);
    const memory = servers.find((s) => s.name === 'memory')!;
    assert.ok(memory.status === 'connected');
    assert.ok(memory.tools.length > 0 && !memory.tools.some((t) => t.name.startsWith('delete_')));
    assert.equal(memory.warnings, undefined);
  });

  it('leaves filtered tools out of describe, and describing or calling one is MCP_UNKNOWN_TOOL', async () => {
    const files = (await t.host.describe({ server: 'files' })) as ServerDescription;
    assert.deepEqual(Object.keys(files.tools).sort(), ['list_directory', 'read_text_file']);
    for (const attempt of [
      t.host.describe({ server: 'files', tool: 'write_file' }),
      t.host.call({ server: 'files', tool: 'write_file', arguments: { path: join(t.dir, 'x'), content: 'no' } }),
      t.host.call({ server: 'memory', tool: 'delete_entities', arguments: { entityNames: ['x'] } }),
    ]) {
      await assert.rejects(attempt, (error: unknown) => {
        assert.ok(isBerryError(error) && error.code === 'MCP_UNKNOWN_TOOL', String(error));
        assert.match(error.message, /available: it is (not in "enabledTools"|in "disabledTools") for this server in mcp\.json/);
        return true;
      });
    }
    const listed = await t.host.call({ server: 'files', tool: 'list_directory', arguments: { path: t.dir } });
    assert.notEqual(listed.isError, true);
  });

  it('types only the tools the filter keeps', async () => {
    const dts = await t.host.typings({ server: 'files' });
    assert.match(dts, /"read_text_file": \{/);
    assert.doesNotMatch(dts, /"write_file"/);
    assert.doesNotMatch(dts, /"memory"/);
  });
});
