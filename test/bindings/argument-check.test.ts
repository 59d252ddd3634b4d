// Arguments checked against the tool's inputSchema before the call is sent: the typed fixture
// (exact schemas, every tools/call logged), server-everything's get-sum, a task tool, a script.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogEvent } from '../../src/bindings/log.js';
import { ArgumentChecker, dialectsFor } from '../../src/bindings/operations/arguments/argument-check.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath, typedServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';

describe('arguments checked against inputSchema before sending', function () {
  this.timeout(60_000);
  let callLog: string;
  const logs: LogEvent[] = [];

  const t = useTestHost(
    (dir) => {
      callLog = join(dir, 'calls.log');
      return {
        typed: { command: process.execPath, args: [typedServerPath], env: { FIXTURE_CALL_LOG: callLog } },
        everything: { command: process.execPath, args: [everythingPath] },
        tasks: faultEntry(['--tasks']),
      };
    },
    { options: { onLog: (event) => logs.push(event) } },
  );

  const called = (): string[] =>
    existsSync(callLog)
      ? readFileSync(callLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { name: string }).name)
      : [];

  /** The one-line problem of a refused call (the part after "was not called: "). */
  async function refusal(server: string, tool: string, args: Record<string, unknown>): Promise<string> {
    const error = await t.host.call({ server, tool, arguments: args }).then(
      () => assert.fail(`${tool} ${JSON.stringify(args)} was not refused`),
      (e: unknown) => e,
    );
    assert.ok(isBerryError(error) && error.code === 'MCP_INVALID_ARGUMENT', String(error));
    assert.doesNotMatch(error.message, /\n/);
    const match = /^Tool "(.+)" of server "(.+)" was not called: (.*)\. Nothing was sent; mcp_describe shows the argument types\.$/.exec(error.message);
    assert.ok(match, error.message);
    return match[3]!;
  }

  it('refuses a wrong type at once with the path, the expected type and the value given, and sends nothing', async () => {
    const before = called().length;
    assert.equal(await refusal('typed', 'add', { a: 1, b: '40' }), 'arguments.b: expected number, got "40" (string)');
    assert.equal(called().length, before, 'nothing reached the server');
    const ok = await t.host.call({ server: 'typed', tool: 'add', arguments: { a: 2, b: 40 } });
    assert.deepEqual(ok.content, [{ type: 'text', text: '42' }]);
    assert.deepEqual(called().slice(before), ['add']);
  });

  it('reads each kind of mismatch naturally, nested paths included', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['add', { a: 1 }, 'arguments.b: missing (required, expected number)'],
      ['add', { a: 1, b: 2, c: 3 }, 'arguments.c: not a parameter of this tool (it takes: a, b)'],
      ['shapes', { items: [{ name: 'a' }, { name: 'b' }, { name: 3 }] }, 'arguments.items[2].name: expected string, got 3 (number)'],
      ['shapes', { items: [{ name: 'a' }, {}] }, 'arguments.items[1].name: missing (required, expected string)'],
      ['shapes', { items: [{ name: 'a', size: 0 }] }, 'arguments.items[0].size: expected a number >= 1, got 0 (number)'],
      ['shapes', { items: [{ name: 'a', size: 1.5 }] }, 'arguments.items[0].size: expected integer, got 1.5 (number)'],
      ['shapes', { mode: 'quick' }, 'arguments.mode: expected one of "fast", "slow", got "quick" (string)'],
      ['shapes', { id: true }, 'arguments.id: expected number | string, got true (boolean)'],
      ['shapes', { items: 'x'.repeat(100) }, `arguments.items: expected array, got "${'x'.repeat(40)}…" (string)`],
      ['shapes', { 'my key': 1 }, 'arguments["my key"]: not a parameter of this tool (it takes: mode, when, items, id)'],
      ['shapes', { items: {} }, 'arguments.items: expected array, got an object'],
    ];
    const before = called().length;
    for (const [tool, args, expected] of cases) assert.equal(await refusal('typed', tool, args), expected, JSON.stringify(args));
    assert.equal(called().length, before, 'nothing reached the server');
    await t.host.call({ server: 'typed', tool: 'shapes', arguments: { items: [{ name: 'a', size: 2 }], mode: 'fast', when: '2026-12-01T10:00:00Z', id: 'x' } });
  });

  it('sends what a server may accept: a defaulted required property left out, null for an optional one, a value two oneOf branches fit, any format, a name an allOf declares', async () => {
    const before = called().length;
    const accepted: Record<string, unknown>[] = [
      { label: 'x' },
      { label: null },
      { label: 'x', scale: null, verbose: null },
      { label: 'x', count: 1 },
      { label: 'x', when: '2026-12-01T10:00:00' },
      { label: 'x', when: 'tomorrow' },
      { label: 'x', options: { deep: true, extra: 'y' } },
    ];
    for (const args of accepted) await t.host.call({ server: 'typed', tool: 'loose', arguments: args });
    const log = readFileSync(callLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .slice(before)
      .map((l) => JSON.parse(l) as { arguments: unknown });
    assert.deepEqual(
      log.map((l) => l.arguments),
      accepted,
      'each reached the server as given',
    );
    await t.host.call({ server: 'typed', tool: 'shapes', arguments: { when: 'tomorrow' } });
  });

  it('still refuses what is certainly wrong beside those', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'arguments.label: missing (required, expected string | null)'],
      [{ label: 1 }, 'arguments.label: expected string, got 1 (number)'],
      [{ label: 'x', verbose: 'yes' }, 'arguments.verbose: expected boolean, got "yes" (string)'],
      [{ label: 'x', scale: 'big' }, 'arguments.scale: expected one of "css", "device", got "big" (string)'],
      [{ label: 'x', count: 'many' }, 'arguments.count: expected number | integer, got "many" (string)'],
      [{ label: 'x', options: { deep: 'no' } }, 'arguments.options.deep: expected boolean, got "no" (string)'],
      [{ label: 'x', bogus: 1 }, 'arguments.bogus: not a parameter of this tool (it takes: count, scale, label, when, verbose, options)'],
    ];
    const before = called().length;
    for (const [args, expected] of cases) assert.equal(await refusal('typed', 'loose', args), expected, JSON.stringify(args));
    assert.equal(called().length, before, 'nothing reached the server');
  });

  it('picks the dialect from $schema: 2020-12 prefixItems, draft-07 items arrays (declared or not), 2020-12 keywords without $schema', async () => {
    assert.deepEqual(dialectsFor('http://json-schema.org/draft-07/schema#', '{}'), ['07']);
    assert.deepEqual(dialectsFor('https://json-schema.org/draft/2020-12/schema', '{}'), ['2020']);
    // No $schema: 2020-12, read by the draft-07 class when the schema has none of 2020-12's own keywords.
    assert.deepEqual(dialectsFor(undefined, '{"type":"object","properties":{"a":{"type":"number"}}}'), ['07']);
    assert.deepEqual(dialectsFor(undefined, '{"type":"object","unevaluatedProperties":false}'), ['2020', '07']);
    assert.equal(await refusal('typed', 'pair_2020', { pair: ['x', 'y'] }), 'arguments.pair[1]: expected number, got "y" (string)');
    assert.equal(await refusal('typed', 'pair_07', { pair: ['x', 'y'] }), 'arguments.pair[1]: expected number, got "y" (string)');
    await t.host.call({ server: 'typed', tool: 'pair_2020', arguments: { pair: ['x', 1] } });
    await t.host.call({ server: 'typed', tool: 'pair_07', arguments: { pair: ['x', 1] } });
    // The draft-07 schema of the add tool was compiled by the draft-07 class (a 2020 class rejects its $schema).
    assert.equal(logs.filter((e) => e.message.includes('"add"')).length, 0);
  });

  it('lets a call with a schema Ajv cannot compile go through, logging it once', async () => {
    const before = called().length;
    await t.host.call({ server: 'typed', tool: 'broken_schema', arguments: { x: 1 } });
    await t.host.call({ server: 'typed', tool: 'broken_schema', arguments: { x: 'y' } });
    assert.deepEqual(called().slice(before), ['broken_schema', 'broken_schema']);
    const reports = logs.filter((e) => e.message.includes('"broken_schema"'));
    assert.equal(reports.length, 1, JSON.stringify(reports));
    assert.equal(reports[0]!.kind, 'error');
    assert.match(
      reports[0]!.message,
      /^the inputSchema of tool "broken_schema" cannot be checked \(type must be JSONType or JSONType\[\]: strin\); its calls go out unchecked$/,
    );
  });

  it('leaves a schema over 256 KB unchecked, said once', async () => {
    const events: LogEvent[] = [];
    const checker = new ArgumentChecker((event) => events.push(event));
    const properties = Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(40) }]));
    const tool = { name: 'huge', inputSchema: { type: 'object' as const, properties } };
    await checker.check('s', tool, { p1: 1 });
    await checker.check('s', tool, { p1: 2 });
    assert.equal(events.length, 1);
    assert.match(events[0]!.message, /^the inputSchema of tool "huge" cannot be checked \(it is \d+ characters as JSON, over 262144\)/);
  });

  it("refuses server-everything's get-sum with a string b before it reaches the server", async () => {
    assert.equal(await refusal('everything', 'get-sum', { a: 2, b: '40' }), 'arguments.b: expected number, got "40" (string)');
  });

  it('checks a task-augmented call before the task is created', async () => {
    assert.equal(await refusal('tasks', 'task_sleep', { ms: 'soon' }), 'arguments.ms: expected number, got "soon" (string)');
  });

  it('reaches a script as MCP_INVALID_ARGUMENT it can catch', async () => {
    const record = await t.host.run(
      `try { await tools.mcp_call({ server: "typed", tool: "add", arguments: { a: 1, b: "40" } }); } catch (e) { text(e.code + " " + e.message); }`,
    );
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.deepEqual(record.outputs, [
      {
        type: 'text',
        text: 'MCP_INVALID_ARGUMENT Tool "add" of server "typed" was not called: arguments.b: expected number, got "40" (string). Nothing was sent; mcp_describe shows the argument types.',
      },
    ]);
  });
});
