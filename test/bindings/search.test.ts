// mcp_search on the host: real queries over the reference servers, signatures as describe gives
// them, filters, saved catalogs answered without a start, failing servers left out, a catalog
// that changes, and the request's checks.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { LogEvent, SearchResult, ServerDescription } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { createHost } from '../../src/host.js';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath, filesystemPath, memoryPath, typedServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { writeConfig } from '../support/write-config.js';

const names = (result: SearchResult): string[] => result.tools.map((hit) => `${hit.server}/${hit.name}`);

const referenceServers = (dir: string): Record<string, unknown> => ({
  everything: { command: process.execPath, args: [everythingPath] },
  files: { command: process.execPath, args: [filesystemPath, dir] },
  memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'm.jsonl') } },
});

async function rejectsWith(attempt: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(attempt, (error: unknown) => {
    assert.ok(isBerryError(error), String(error));
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

describe('mcp_search on the host', function () {
  this.timeout(60_000);

  describe('over the reference servers', () => {
    const t = useTestHost(referenceServers);

    it('finds a tool by what it does: "write file", "entity", "add numbers", a name in camelCase', async () => {
      assert.equal(names(await t.host.search({ query: 'write file' }))[0], 'files/write_file');
      const entity = names(await t.host.search({ query: 'entity', limit: 5 }));
      assert.ok(entity.includes('memory/create_entities'), entity.join(', '));
      assert.ok(
        entity.every((name) => name.startsWith('memory/')),
        entity.join(', '),
      );
      assert.ok(names(await t.host.search({ query: 'add numbers', limit: 3 })).includes('everything/get-sum'));
      assert.deepEqual(names(await t.host.search({ query: 'add numbers', server: 'everything', limit: 1 })), ['everything/get-sum']);
      assert.equal(names(await t.host.search({ query: 'createEntities' }))[0], 'memory/create_entities');
      assert.equal(names(await t.host.search({ query: 'get-sum' }))[0], 'everything/get-sum');
      assert.equal(names(await t.host.search({ query: 'search for nodes' }))[0], 'memory/search_nodes');
    });

    it("gives each tool's signature, title and one-line description as describe does", async () => {
      const { tools } = await t.host.search({ query: 'read file', limit: 5 });
      assert.equal(tools.length, 5);
      const files = (await t.host.describe({ server: 'files' })) as ServerDescription;
      for (const hit of tools) {
        assert.equal(hit.server, 'files');
        const line = files.tools[hit.name];
        assert.ok(line, hit.name);
        assert.ok(line.startsWith(`${hit.signature} — `), `${line}\n${hit.signature}`);
        assert.ok(hit.description.length > 0 && !hit.description.includes('\n'));
      }
      const [sum] = (await t.host.search({ query: 'sum', server: 'everything', limit: 1 })).tools;
      assert.deepEqual(sum, {
        server: 'everything',
        name: 'get-sum',
        title: 'Get Sum Tool',
        description: 'Returns the sum of two numbers',
        signature: '({ a: number; b: number })',
      });
    });

    it('keeps to limit and to the server asked for; a query that matches nothing is an empty list', async () => {
      assert.equal((await t.host.search({ query: 'file', limit: 2 })).tools.length, 2);
      assert.equal((await t.host.search({ query: 'file directory list read write move', limit: 50 })).tools.length > 10, true);
      assert.ok((await t.host.search({ query: 'file' })).tools.length <= 10);
      const memory = await t.host.search({ query: 'file entity read', server: 'memory', limit: 50 });
      assert.ok(memory.tools.length > 0 && memory.tools.every((hit) => hit.server === 'memory'));
      assert.deepEqual(await t.host.search({ query: 'zzqqxx' }), { tools: [] });
    });

    it('refuses a malformed request with MCP_INVALID_ARGUMENT, and an unknown server with MCP_UNKNOWN_SERVER', async () => {
      for (const request of [
        {},
        { query: '' },
        { query: '   ' },
        { query: 42 },
        { query: 'x'.repeat(301) },
        { query: 'file', limit: 0 },
        { query: 'file', limit: 51 },
        { query: 'file', limit: 2.5 },
        { query: 'file', limit: '3' },
        { query: 'file', server: '' },
        { query: 'file', tool: 'x' },
      ]) {
        await rejectsWith(t.host.search(request as never), 'MCP_INVALID_ARGUMENT', /^mcp_search: /);
      }
      await rejectsWith(t.host.search({ query: 'file', server: 'fils' }), 'MCP_UNKNOWN_SERVER', /files/);
    });
  });

  describe('filters', () => {
    const t = useTestHost((dir) => ({
      files: { command: process.execPath, args: [filesystemPath, dir], enabledTools: ['read_text_file', 'list_directory'] },
      memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'm.jsonl') }, disabledTools: ['create_entities'] },
    }));

    it('never returns a tool that enabledTools or disabledTools hides, and follows a changed filter', async () => {
      const files = names(await t.host.search({ query: 'write file edit move search read directory', limit: 50 }));
      assert.deepEqual(files.filter((name) => name.startsWith('files/')).sort(), ['files/list_directory', 'files/read_text_file']);
      assert.ok(!names(await t.host.search({ query: 'create_entities', limit: 50 })).includes('memory/create_entities'));
      // The filter changes: the index follows the entry as this search read it.
      writeConfig(t.dir, {
        files: { command: process.execPath, args: [filesystemPath, t.dir], enabledTools: ['write_file'] },
        memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(t.dir, 'm.jsonl') } },
      });
      assert.deepEqual(names(await t.host.search({ query: 'read write file', server: 'files', limit: 50 })), ['files/write_file']);
      assert.equal(names(await t.host.search({ query: 'create_entities' }))[0], 'memory/create_entities');
    });
  });

  describe('learned result types', () => {
    const t = useTestHost({ typed: { command: process.execPath, args: [typedServerPath] } });

    it("shows what calls taught of a tool's results, as describe does, and only the caller's own learning", async () => {
      const signature = async (client?: object): Promise<string | undefined> =>
        (await t.host.search({ query: 'read_graph', server: 'typed', limit: 1 }, client ? { client } : {})).tools[0]?.signature;
      assert.equal(await signature(), '({ page?: number })');
      for (const page of [1, 2]) await t.host.call({ server: 'typed', tool: 'read_graph', arguments: { page } });
      const line = ((await t.host.describe({ server: 'typed' })) as ServerDescription).tools['read_graph']!;
      assert.match(line, /returns \(observed over 2 calls\)/);
      const learned = await signature();
      assert.ok(learned && line.startsWith(`${learned} — `), `${line}\n${learned}`);
      assert.equal(await signature({}), '({ page?: number })', "another client's search does not see the host's learning");
    });
  });

  describe('catalogs', () => {
    const t = useTestHost((dir) => ({
      everything: { command: process.execPath, args: [everythingPath] },
      fault: faultEntry(),
      broken: { command: join(dir, 'no-such-server') },
      off: { command: process.execPath, args: [everythingPath], enabled: false },
    }));

    it('leaves out a server that fails or is disabled; named, its failure is the answer', async () => {
      const found = names(await t.host.search({ query: 'echo', limit: 50 }));
      assert.ok(found.includes('everything/echo') && found.includes('fault/echo'), found.join(', '));
      assert.ok(found.every((name) => !name.startsWith('broken/') && !name.startsWith('off/')));
      await rejectsWith(t.host.search({ query: 'echo', server: 'broken' }), 'MCP_CONNECT_FAILED');
      await rejectsWith(t.host.search({ query: 'echo', server: 'off' }), 'MCP_SERVER_DISABLED');
    });

    it('follows a catalog that changes (tools/list_changed) in a warm index', async () => {
      assert.deepEqual(names(await t.host.search({ query: 'frobnicate', server: 'fault' })), []);
      await t.host.call({ server: 'fault', tool: 'add_tool', arguments: { name: 'frobnicate_widgets' } });
      let found: string[] = [];
      for (let i = 0; i < 50 && found.length === 0; i++) {
        found = names(await t.host.search({ query: 'frobnicate', server: 'fault' }));
        if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(found, ['fault/frobnicate_widgets']);
    });

    it('answers from saved catalogs without starting their servers', async () => {
      const savedCatalogs = { dir: join(t.dir, 'catalogs') };
      const configPath = writeConfig(t.dir, referenceServers(t.dir));
      const started: LogEvent[] = [];
      const first = createHost({ cwd: t.dir, configPath, savedCatalogs, onLog: (event) => started.push(event) });
      try {
        assert.equal(names(await first.search({ query: 'write file' }))[0], 'files/write_file');
      } finally {
        await first.close();
      }
      assert.equal(started.filter((event) => event.kind === 'spawned').length, 3, 'the first host started the servers');
      const events: LogEvent[] = [];
      const second = createHost({ cwd: t.dir, configPath, savedCatalogs, onLog: (event) => events.push(event) });
      try {
        assert.equal(names(await second.search({ query: 'write file' }))[0], 'files/write_file');
        assert.equal(names(await second.search({ query: 'entity', limit: 1 }))[0]?.startsWith('memory/'), true);
        assert.deepEqual(
          events.filter((event) => event.kind === 'spawned'),
          [],
        );
      } finally {
        await second.close();
      }
    });
  });
});
