// Attacks on "app-only tools are not the model's" (MCP Apps extension: a host MUST NOT offer the
// agent a tool whose _meta.ui.visibility leaves out "model"). The model is a script (host.run, and
// serve's run), the CLI, and whoever reads serve's description; the real MCP Apps server
// @modelcontextprotocol/server-system-monitor keeps `poll-system-stats` for its app. A hostile or
// careless server (test/fixtures/app-tools-server.mjs) writes visibility in every malformed way.
// Each test reaches or names a hidden tool without src/bindings/operations/tool-filter.ts.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ListResult, ServerDescription, ToolDescription } from '../../src/bindings/index.js';
import { berry } from '../support/berry-cli.js';
import { serveStdio } from '../support/berry-serve.js';
import { FIXTURES_DIR, systemMonitorPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor } from '../support/wait.js';

const VIEW = 'ui://system-monitor/mcp-app.html';
const FIXTURE_VIEW = 'ui://fixture/view.html';
/** What app-tools-server.mjs lists that a model may see, in its order. */
const FIXTURE_VISIBLE = ['plain', 'with-view', 'model-and-app', 'model-only', 'flat-view', 'null-visibility', 'null-ui', 'other-meta', 'bad-view', 'echo_args'];
const FIXTURE_HIDDEN = [
  'app-only',
  'empty-visibility',
  'string-visibility',
  'object-visibility',
  'unknown-visibility',
  'capital-model',
  'string-ui',
  'array-ui',
];

/** The real server behind `tee`, which copies every byte berry-mcp sends it to `wire`. */
function tappedMonitor(wire: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    command: '/bin/sh',
    args: ['-c', 'tee -a "$WIRE" | exec "$NODE" "$MONITOR" --stdio'],
    env: { WIRE: wire, NODE: process.execPath, MONITOR: systemMonitorPath() },
    ...extra,
  };
}

/** The tools/call requests that reached a server, by tool name. */
function calledTools(wire: string): string[] {
  if (!existsSync(wire)) return [];
  return readFileSync(wire, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"tools/call"'))
    .map((line) => (JSON.parse(line) as { params: { name: string } }).params.name);
}

describe("adversarial: app-only tools are not the model's (MCP Apps)", function () {
  this.timeout(120_000);

  const t = useTestHost(
    (dir) => {
      writeFileSync(join(dir, 'monitor.wire'), '');
      writeFileSync(join(dir, 'apps.wire'), '');
      return {
        monitor: tappedMonitor(join(dir, 'monitor.wire')),
        'monitor-enabled': tappedMonitor(join(dir, 'monitor.wire'), { enabledTools: ['get-system-info', 'poll-system-stats'] }),
        apps: { command: process.execPath, args: [join(FIXTURES_DIR, 'app-tools-server.mjs')], env: { FIXTURE_WIRE_LOG: join(dir, 'apps.wire') } },
      };
    },
    { options: (dir) => ({ savedCatalogs: { dir: join(dir, 'catalogs') } }) },
  );

  it('a script that calls poll-system-stats by name, before and after listing, gets MCP_UNKNOWN_TOOL and nothing is sent', async () => {
    // A fresh host: the first call finds the catalog cold (findTool), the second warm (knownTool).
    const record = await t.open().run(`
const attempt = (server) => tools.mcp_call({ server, tool: "poll-system-stats", arguments: {} }).then(() => "called", (e) => e.code + ": " + e.message);
const cold = await attempt("monitor");
await tools.mcp_list({});
const warm = await attempt("monitor");
const twin = await attempt("monitor-enabled");
const info = await tools.mcp_call({ server: "monitor", tool: "get-system-info", arguments: {} });
return { cold, warm, twin, info: info.structuredContent !== undefined };
`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const result = record.result as Record<string, string | boolean>;
    for (const key of ['cold', 'warm', 'twin']) {
      assert.match(
        String(result[key]),
        /^MCP_UNKNOWN_TOOL: Server "monitor(-enabled)?" has no tool "poll-system-stats" available: the server keeps it for its MCP App/,
        key,
      );
    }
    assert.match(String(result['cold']), /Its tools: get-system-info\.$/);
    // A tool the model may use still works.
    assert.equal(result['info'], true);
    assert.deepEqual(calledTools(join(t.dir, 'monitor.wire')), ['get-system-info']);
  });

  it("list, describe and typings do not name it; describe shows the visible tool's ui:// resource", async () => {
    const record = await t.host.run(`
const list = await tools.mcp_list({ server: "monitor" });
const server = await tools.mcp_describe({ server: "monitor" });
const tool = await tools.mcp_describe({ server: "monitor", tool: "get-system-info" });
const hidden = await tools.mcp_describe({ server: "monitor", tool: "poll-system-stats" }).then(() => "described", (e) => e.code);
return { list, server, tool, hidden };
`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const { list, server, tool, hidden } = record.result as { list: ListResult; server: ServerDescription; tool: ToolDescription; hidden: string };
    const status = list.servers[0]!;
    assert.ok(status.status === 'connected');
    assert.deepEqual(
      status.tools.map((one) => one.name),
      ['get-system-info'],
    );
    assert.deepEqual(Object.keys(server.tools), ['get-system-info']);
    assert.match(server.tools['get-system-info']!, /\[ui\]$/);
    assert.equal(tool.ui, VIEW);
    assert.equal(hidden, 'MCP_UNKNOWN_TOOL');
    assert.doesNotMatch(JSON.stringify({ list, server }), /poll-system-stats/);
    const dts = await t.host.typings({ server: 'monitor' });
    assert.match(dts, /"get-system-info"/);
    assert.doesNotMatch(dts, /poll-system-stats/);
  });

  it('enabledTools that names it does not hand it to the model: it stays hidden, with a warning', async () => {
    const { servers } = await t.host.list({ server: 'monitor-enabled' });
    const status = servers[0]!;
    assert.ok(status.status === 'connected');
    assert.deepEqual(
      status.tools.map((one) => one.name),
      ['get-system-info'],
    );
    assert.deepEqual(status.warnings, [
      'enabledTools names "poll-system-stats", which the server keeps from the model (MCP Apps _meta.ui.visibility): it stays hidden',
    ]);
  });

  it('a saved catalog (list without starting the server) leaves it out too', async () => {
    await t.host.list({ server: 'monitor', refresh: true });
    const catalogs = join(t.dir, 'catalogs');
    await waitFor(() => existsSync(catalogs) && readdirSync(catalogs).some((name) => !name.endsWith('.tmp')), 10_000);
    const saved = readdirSync(catalogs).map((name) => readFileSync(join(catalogs, name), 'utf8'));
    // The file keeps the server's whole list (filters apply when it is read)...
    assert.ok(saved.some((text) => text.includes('poll-system-stats')));
    // ...and a host that answers from it, with no connection, does not show it.
    const { servers } = await t.open({ savedCatalogs: { dir: catalogs } }).list({ server: 'monitor' });
    const status = servers[0]!;
    assert.ok(status.status === 'connected' && status.cached !== undefined, JSON.stringify(status));
    assert.deepEqual(
      status.tools.map((one) => one.name),
      ['get-system-info'],
    );
  });

  it("serve's run description and --signatures leave it out", async () => {
    const serve = await serveStdio(['--config', t.configPath, '--signatures'], { cwd: t.dir });
    try {
      const { tools } = await serve.client.listTools();
      const description = tools[0]!.description!;
      assert.match(description, /- monitor \(1\): get-system-info/);
      assert.match(description, /\n {2}get-system-info\(/);
      assert.doesNotMatch(description, /poll-system-stats/);
    } finally {
      await serve.close();
    }
  });

  it("the CLI is a model's face too: `berry-mcp call` refuses it with exit 2 and sends nothing", async () => {
    const before = calledTools(join(t.dir, 'monitor.wire')).length;
    const result = await berry(['call', 'monitor', 'poll-system-stats', '--config', t.configPath], { cwd: t.dir });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /has no tool "poll-system-stats" available: .*\[MCP_UNKNOWN_TOOL\]/);
    assert.equal(calledTools(join(t.dir, 'monitor.wire')).length, before);
  });

  it('a server cannot expose a tool through malformed visibility: only "model" in a list shows it', async () => {
    const { servers } = await t.host.list({ server: 'apps' });
    const status = servers[0]!;
    assert.ok(status.status === 'connected');
    assert.deepEqual(
      status.tools.map((one) => one.name),
      FIXTURE_VISIBLE,
    );
    const record = await t.host.run(`
const out = {};
for (const tool of ${JSON.stringify(FIXTURE_HIDDEN)}) {
  out[tool] = await tools.mcp_call({ server: "apps", tool, arguments: {} }).then(() => "called", (e) => e.code);
}
return out;
`);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.deepEqual(record.result, Object.fromEntries(FIXTURE_HIDDEN.map((name) => [name, 'MCP_UNKNOWN_TOOL'])));
    assert.deepEqual(calledTools(join(t.dir, 'apps.wire')), []);
    const malformed = await t.host.describe({ server: 'apps', tool: 'string-visibility' }).catch((error: Error) => error.message);
    assert.match(String(malformed), /its MCP Apps _meta\.ui is malformed/);
  });

  it('describe shows a ui:// resource from _meta.ui or the deprecated flat key, and nothing else as one', async () => {
    const uiOf = async (tool: string): Promise<string | undefined> => ((await t.host.describe({ server: 'apps', tool })) as ToolDescription).ui;
    assert.equal(await uiOf('with-view'), FIXTURE_VIEW);
    assert.equal(await uiOf('flat-view'), FIXTURE_VIEW);
    assert.equal(await uiOf('bad-view'), undefined);
    assert.equal(await uiOf('other-meta'), undefined);
    assert.equal(await uiOf('plain'), undefined);
  });
});
