// Through a real `berry-mcp serve`, whose host lives across runs: a filter edited while it runs
// applies to the next run's call, and a dead server costs its init limit once, not every run.
import assert from 'node:assert/strict';
import { run, serveStdio, type StdioServe, texts } from '../support/berry-serve.js';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

describe('serve: entries as each run reads them', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let serve: StdioServe;
  const dead = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], timeout: 1 };

  before(async () => {
    tmp = tempDir('berry-serve-');
    writeConfig(tmp.dir, { spy: faultEntry(), dead, everything: { command: process.execPath, args: [everythingPath] } });
    serve = await serveStdio(['--config', 'mcp.json'], { cwd: tmp.dir });
  });
  after(async () => {
    await serve?.close();
    tmp.cleanup();
  });

  it('a tool added to disabledTools is refused by the next run, on the same connection', async () => {
    const call = `try { const r = await tools.mcp_call({ server: "spy", tool: "echo", arguments: { text: "hi" } }); text("ok " + r.content[0].text); } catch (e) { text(e.code + " " + e.message); }`;
    assert.deepEqual(texts(await run(serve.client, call)), ['ok hi']);
    writeConfig(tmp.dir, { spy: faultEntry([], { disabledTools: ['echo'] }), dead, everything: { command: process.execPath, args: [everythingPath] } });
    const [refused] = texts(await run(serve.client, call));
    assert.match(refused ?? '', /^MCP_UNKNOWN_TOOL Server "spy" has no tool "echo" available: it is in "disabledTools"/);
  });

  it('a server that never answers initialize costs one init limit, not one per run', async () => {
    const list =
      'const t = Date.now(); const l = await tools.mcp_list({}); text(JSON.stringify({ ms: Date.now() - t, servers: l.servers.map((s) => [s.name, s.status, s.error?.message ?? ""]) }));';
    const runs: { ms: number; servers: [string, string, string][] }[] = [];
    for (let i = 0; i < 3; i++) runs.push(JSON.parse(texts(await run(serve.client, list))[0]!));
    for (const { servers } of runs) {
      assert.deepEqual(
        servers.map(([name, status]) => [name, status]),
        [
          ['spy', 'connected'],
          ['dead', 'error'],
          ['everything', 'connected'],
        ],
      );
    }
    // The first run may already find the failure recorded (serve lists the servers for its run tool's description).
    assert.ok(runs[1]!.ms < 800 && runs[2]!.ms < 800, JSON.stringify(runs.map((r) => r.ms)));
    assert.match(runs[2]!.servers[1]![2], /^Server "dead" is not started again for \d+ s/);
  });
});
