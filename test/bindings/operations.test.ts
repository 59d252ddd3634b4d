import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMcpHost } from '../../src/bindings/index.js';
import type { ServerDescription, ToolDescription } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath, filesystemPath, memoryPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { useTestHost } from '../support/test-host.js';

describe('operations against the reference servers', function () {
  this.timeout(60_000);

  const t = useTestHost(
    (dir) => {
      writeFileSync(join(dir, 'hello.txt'), 'hello berry\n');
      return {
        everything: { command: process.execPath, args: [everythingPath] },
        files: { command: process.execPath, args: [filesystemPath, dir] },
        memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
        broken: { command: 'berry-no-such-command-xyz' },
        off: { command: 'whatever', enabled: false },
        paged: faultEntry(['--tools=23', '--page-size=5', '--instructions=Use whoami first.']),
        invalid: { command: 'x', url: 'http://127.0.0.1:1/mcp' },
      };
    },
    { create: createMcpHost },
  );

  it('lists every server with its status; one broken server hides none of the others', async () => {
    const result = await t.host.list({});
    assert.equal(result.configPath, t.configPath);
    const byName = Object.fromEntries(result.servers.map((s) => [s.name, s]));
    assert.deepEqual(Object.keys(byName), ['everything', 'files', 'memory', 'broken', 'off', 'paged', 'invalid']);
    const everything = byName['everything']!;
    assert.equal(everything.status, 'connected');
    assert.ok(everything.status === 'connected' && everything.tools.some((t) => t.name === 'echo'));
    assert.equal(byName['files']!.status, 'connected');
    assert.equal(byName['memory']!.status, 'connected');
    const broken = byName['broken']!;
    assert.ok(broken.status === 'error');
    assert.equal(broken.error.code, 'MCP_CONNECT_FAILED');
    assert.match(broken.error.message, /berry-no-such-command-xyz/);
    assert.match(broken.error.message, /command not found/);
    assert.deepEqual(byName['off'], { name: 'off', status: 'disabled', transport: 'stdio' });
    const invalid = byName['invalid']!;
    assert.ok(invalid.status === 'error' && invalid.error.code === 'MCP_CONFIG_INVALID');
  });

  it('keeps list descriptions short and follows tools/list cursors to the end', async () => {
    const result = await t.host.list({ server: 'paged' });
    assert.equal(result.servers.length, 1);
    const paged = result.servers[0]!;
    assert.ok(paged.status === 'connected');
    const dummies = paged.tools.filter((t) => /^t\d{4}$/.test(t.name));
    assert.equal(dummies.length, 23);
    for (const server of (await t.host.list({ server: 'everything' })).servers) {
      assert.ok(server.status === 'connected');
      for (const tool of server.tools) assert.ok(tool.description.length <= 160, tool.name);
    }
  });

  it('restricts discovery to one server and rejects an unknown one naming what exists', async () => {
    await assert.rejects(t.host.list({ server: 'nope' }), (error: unknown) => {
      assert.ok(isBerryError(error));
      assert.equal(error.code, 'MCP_UNKNOWN_SERVER');
      assert.match(error.message, /Unknown server "nope"\. Configured: everything, files, memory/);
      assert.ok(error.message.includes(t.configPath));
      return true;
    });
  });

  it('describes one tool: argument types, annotations, and the raw schemas only when asked', async () => {
    const tool = (await t.host.describe({ server: 'files', tool: 'read_text_file' })) as ToolDescription;
    assert.equal(tool.name, 'read_text_file');
    assert.equal(tool.server, 'files');
    assert.match(tool.arguments, /^\{ path: string; .*head\?: number/);
    assert.equal(tool.inputSchema, undefined);
    assert.equal(tool.annotations?.readOnlyHint, true);
    const raw = (await t.host.describe({ server: 'files', tool: 'read_text_file', schemas: true })) as ToolDescription;
    assert.equal(raw.inputSchema?.type, 'object');
    assert.ok(raw.inputSchema?.properties && 'path' in raw.inputSchema.properties);
  });

  it('describes a whole server: catalog plus instructions', async () => {
    const server = (await t.host.describe({ server: 'paged' })) as ServerDescription;
    assert.equal(server.instructions, 'Use whoami first.');
    assert.ok(Object.keys(server.tools).length >= 23 + 5);
    assert.ok(server.serverInfo?.name);
    assert.match(server.protocolVersion ?? '', /^\d{4}-\d{2}-\d{2}$/);
  });

  it('rejects an unknown tool naming the ones that exist', async () => {
    await assert.rejects(t.host.describe({ server: 'memory', tool: 'nope' }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_UNKNOWN_TOOL');
      assert.match(error.message, /has no tool "nope"\. Its tools, closest first: .*read_graph/);
      return true;
    });
  });

  it('calls tools and returns the full result', async () => {
    const echo = await t.host.call({ server: 'everything', tool: 'echo', arguments: { message: 'hi' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: hi' }]);
    const file = await t.host.call({ server: 'files', tool: 'read_text_file', arguments: { path: join(t.dir, 'hello.txt') } });
    assert.equal((file.content[0] as { text: string }).text, 'hello berry\n');
    const image = await t.host.call({ server: 'everything', tool: 'get-tiny-image', arguments: {} });
    assert.ok(image.content.some((b) => b.type === 'image' && b.mimeType === 'image/png' && b.data.length > 100));
    await t.host.call({
      server: 'memory',
      tool: 'create_entities',
      arguments: { entities: [{ name: 'berry', entityType: 'project', observations: ['test'] }] },
    });
    const graph = await t.host.call({ server: 'memory', tool: 'read_graph', arguments: {} });
    assert.ok(graph.structuredContent && JSON.stringify(graph.structuredContent).includes('berry'));
  });

  it('keeps tool-level errors as results, including outputSchema tools without structuredContent', async () => {
    const failed = await t.host.call({ server: 'paged', tool: 'fail', arguments: {} });
    assert.equal(failed.isError, true);
    assert.equal((failed.content[0] as { text: string }).text, 'this tool failed on purpose');
    const structured = await t.host.call({ server: 'paged', tool: 'structured', arguments: {} });
    assert.deepEqual(structured.structuredContent, { n: 42 });
    await t.host.describe({ server: 'paged' });
    const missing = await t.host.call({ server: 'paged', tool: 'structured_missing', arguments: {} });
    assert.equal(missing.structuredContent, undefined);
    assert.ok(missing.content.length > 0);
  });

  it('rejects wrong arguments with MCP_INVALID_ARGUMENT before touching a server', async () => {
    const cases: unknown[] = [
      { server: 'everything' },
      { server: 'everything', tool: 'echo', arguments: [] },
      { server: 5, tool: 'echo' },
      { server: 'everything', tool: 'echo', extra: true },
      'everything',
    ];
    for (const request of cases) {
      await assert.rejects(t.host.call(request as never), (error: unknown) => {
        assert.ok(isBerryError(error) && error.code === 'MCP_INVALID_ARGUMENT', JSON.stringify(request));
        return true;
      });
    }
  });

  it('reports disabled and invalid servers when called', async () => {
    await assert.rejects(t.host.call({ server: 'off', tool: 'x' }), { code: 'MCP_SERVER_DISABLED' });
    await assert.rejects(t.host.call({ server: 'invalid', tool: 'x' }), { code: 'MCP_CONFIG_INVALID' });
  });

  it('passes a server-side JSON-RPC error through as MCP_PROTOCOL_ERROR', async () => {
    // Arguments that fit the schema: wrong ones are refused before sending (argument-check.test.ts).
    await assert.rejects(t.host.call({ server: 'paged', tool: 'rpc_error', arguments: { code: -32602, message: 'bad text' } }), (error: unknown) => {
      assert.ok(isBerryError(error));
      assert.ok(error.code === 'MCP_PROTOCOL_ERROR', error.message);
      return true;
    });
  });

  it('checks a tool name against the catalog before calling: MCP_UNKNOWN_TOOL, closest names first', async () => {
    await assert.rejects(t.host.call({ server: 'files', tool: 'list_dir' }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_UNKNOWN_TOOL', String(error));
      assert.match(error.message, /has no tool "list_dir"\. Its tools, closest first: list_directory, /);
      return true;
    });
  });
});

describe('operations without a config file', () => {
  it('a missing file means no servers', async () => {
    const tmp = tempDir();
    const host = createMcpHost({ cwd: tmp.dir, configPath: 'nothing-here.json' });
    try {
      const result = await host.list();
      assert.deepEqual(result, { configPath: join(tmp.dir, 'nothing-here.json'), servers: [] });
      await assert.rejects(host.call({ server: 'x', tool: 'y' }), /no servers are configured .* does not exist/);
    } finally {
      await host.close();
      tmp.cleanup();
    }
  });
});
