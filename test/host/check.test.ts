// The check before a run (src/bindings/check): against real servers (server-everything, the typed
// fixture that logs every tools/call it receives), certain mistakes at call sites fail the run
// with SCRIPT_CHECK_FAILED, each at its line:column, before anything is sent; what the script
// handles, and what may work, goes on with a warning; `check: 'off'` runs the script as it is.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MachineHost } from '../../src/bindings/index.js';
import type { RunRecord } from '../../src/runtime/index.js';
import { everythingPath, typedServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { writeConfig } from '../support/write-config.js';

/** The script's lines joined: positions in the tests are the lines as written here. */
const script = (...lines: string[]): string => lines.join('\n');

function problems(record: RunRecord): string[] {
  assert.equal(record.ok, false, JSON.stringify(record));
  assert.equal(record.error?.code, 'SCRIPT_CHECK_FAILED', JSON.stringify(record.error));
  return (record.error?.problems ?? []).map((p) => `${p.line}:${p.column} ${p.code}`);
}

describe('host.run: the check before the run', function () {
  this.timeout(60_000);
  let callLog = '';
  const t = useTestHost((dir) => {
    callLog = join(dir, 'calls.log');
    return {
      everything: { command: process.execPath, args: [everythingPath] },
      typed: { command: process.execPath, args: [typedServerPath], env: { FIXTURE_CALL_LOG: callLog } },
    };
  });
  const sent = (): string[] => (existsSync(callLog) ? readFileSync(callLog, 'utf8').split('\n').filter(Boolean) : []);

  it('refuses every certain mistake at once, each at its line:column, and sends nothing (a good call before them included)', async () => {
    const record = await t.host.run(
      script(
        "await tools.mcp_call({ server: 'typed', tool: 'read_graph', arguments: {} });",
        "await tools.mcp_call({ server: 'everything', tool: 'eco', arguments: { message: 'hi' } });",
        "await tools.mcp_call({ server: 'everythin', tool: 'echo', arguments: { message: 'hi' } });",
        "await tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: '1', c: 3 } });", // c: the schema allows more
        "await tools.mcp_cal({ server: 'everything' });",
        "await tools.mcp_call({ server: 'everything', tool: 'echo', args: { message: 'x' } });",
        "await tools.mcp_prompt({ server: 'everything', name: 'args-prompt', arguments: {} });",
        "await tools.mcp_describe({ server: 'typed', tool: 'nope' });",
        "await tools.mcp_call({ server: 'typed', tool: 'add', arguments: { a: 1, b: 2, c: 3 } });",
      ),
    );
    assert.deepEqual(problems(record), [
      '2:52 CHECK_UNKNOWN_TOOL',
      '3:32 CHECK_UNKNOWN_SERVER',
      '4:74 CHECK_ARGUMENT_MISSING',
      '4:79 CHECK_ARGUMENT_TYPE',
      '5:13 CHECK_UNKNOWN_FUNCTION',
      '6:52 CHECK_ARGUMENT_MISSING',
      '6:60 CHECK_REQUEST_FIELD',
      '7:80 CHECK_ARGUMENT_MISSING',
      '8:51 CHECK_UNKNOWN_TOOL',
      '9:79 CHECK_ARGUMENT_UNKNOWN',
    ]);
    assert.equal(record.calls, 0);
    assert.deepEqual(sent(), [], 'nothing reached the typed server');
    const { message, line, column } = record.error!;
    assert.deepEqual([line, column], [2, 52]);
    assert.match(message, /^The script was not run: .* 10 mistakes .*Nothing was sent to any server/);
    assert.match(message, /- 2:52 CHECK_UNKNOWN_TOOL: Server "everything" has no tool "eco"\. Its tools, closest first: echo,/);
    assert.match(message, /- 4:79 CHECK_ARGUMENT_TYPE: tools\.mcp_call everything\/get-sum: arguments\.a: expected number, got "1" \(string\)/);
    assert.match(message, /- 4:74 CHECK_ARGUMENT_MISSING: tools\.mcp_call everything\/get-sum: arguments\.b: missing \(required, expected number\)/);
    assert.match(message, /- 5:13 CHECK_UNKNOWN_FUNCTION: tools\.mcp_cal is not a function of the script API\. It has: mcp_call,/);
    assert.match(message, /- 9:79 CHECK_ARGUMENT_UNKNOWN: tools\.mcp_call typed\/add: arguments\.c: not a parameter of this tool \(it takes: a, b\)/);
    assert.match(message, /- 7:80 CHECK_ARGUMENT_MISSING: tools\.mcp_prompt everything\/args-prompt: needs "city"/);
  });

  it('lists at most 20 mistakes in the message and counts the rest; every one is in problems', async () => {
    const lines = Array.from({ length: 45 }, (_, i) => `await tools.mcp_call({ server: 'everything', tool: 'echo${i}' });`);
    const record = await t.host.run(script(...lines));
    assert.equal(problems(record).length, 45);
    const listed = record.error!.message.split('\n').filter((l) => l.startsWith('- '));
    assert.equal(listed.length, 21);
    assert.equal(listed[20], '- and 25 more');
    assert.ok(record.error!.message.length < 20 * 700, `${record.error!.message.length} characters`);
  });

  it('a mistake the script handles (try, .catch, allSettled) is a warning: the run goes on', async () => {
    const record = await t.host.run(
      script(
        "try { await tools.mcp_call({ server: 'nope', tool: 'x' }); } catch (e) { text(e.code); }",
        "const r = await tools.mcp_call({ server: 'everything', tool: 'eco' }).catch((e) => e.code);",
        "const [s] = await Promise.allSettled([tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: 'x' } })]);",
        'return [r, s.status];',
      ),
    );
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.deepEqual(record.result, ['MCP_UNKNOWN_TOOL', 'rejected']);
    assert.deepEqual(
      record.logs.filter((l) => l.level === 'warn').map((l) => l.text.split(':').slice(0, 2).join(':')),
      ['1:38 CHECK_UNKNOWN_SERVER', '2:62 CHECK_UNKNOWN_TOOL', '3:106 CHECK_ARGUMENT_MISSING', '3:111 CHECK_ARGUMENT_TYPE'],
    );
  });

  it("check: 'off' runs the script as it is: the first call goes out, the mistake fails at its call", async () => {
    const before = sent().length;
    const record = await t.host.run(
      script("await tools.mcp_call({ server: 'typed', tool: 'read_graph', arguments: {} });", "await tools.mcp_call({ server: 'typed', tool: 'nope' });"),
      { check: 'off' },
    );
    assert.equal(record.error?.code, 'MCP_UNKNOWN_TOOL');
    assert.equal(sent().length, before + 1);
    await assert.rejects(t.host.run('return 1', { check: 'maybe' as never }), /check must be 'calls' or 'off'/);
  });

  it("with a warm checker, reading a field the tool's declared output type lacks is a warning in the log; the run goes on", async () => {
    assert.ok(t.host instanceof MachineHost);
    const code = script(
      "const w = await tools.mcp_call({ server: 'everything', tool: 'get-structured-content', arguments: { location: 'Chicago' } });",
      'text(w.structuredContent.temp);',
      'const first = w.content[0].text;',
      'let own = { a: 1 }; own.b;',
    );
    // The process's second checked script warms the checker in the background.
    let warnings: readonly string[] = [];
    for (let i = 0; i < 50 && warnings.length === 0; i++) {
      const checked = await t.host.checkScript(code, { functions: ['mcp_call'], typeBudgetMs: 10_000 });
      warnings = (await checked.typeWarnings) ?? [];
      if (warnings.length === 0) await sleep(200);
    }
    assert.deepEqual(warnings, ["2:26 TS2339: Property 'temp' does not exist on type 'StructuredContent'. (from the server's typings; the run goes on)"]);
    const record = await t.host.run(code);
    assert.equal(record.ok, true, JSON.stringify(record.error));
    // In the run, within the default budget: on a loaded machine the checker may give up (no warning, never a refusal).
    assert.ok(
      record.logs.every((l) => l.level === 'warn' && l.text === warnings[0]),
      JSON.stringify(record.logs),
    );
  });

  it('a server that does not start is not a check failure: the run reports it itself', async () => {
    const host = t.open({ configPath: writeConfig(join(t.dir, 'broken'), { broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] } }) });
    const record = await host.run("await tools.mcp_call({ server: 'broken', tool: 'x', arguments: {} });");
    assert.equal(record.error?.code, 'MCP_CONNECT_FAILED', JSON.stringify(record.error));
  });
});
