// The check before a run (src/bindings/check), attacked. The check is a convenience in front of
// the call-time checks, never the guard: the cheapest ways around it (an alias of `tools`, a
// destructured function, a computed name) must leave the run to the call-time check, which still
// refuses; the cheapest ways to make the check itself slow or huge (1 MB, deep nesting, thousands
// of calls, a thousand unknown names) must end in bounded time and let the run go on unchecked
// rather than refuse. And the cases where a naive check would refuse working code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MachineHost } from '../../src/bindings/index.js';
import type { ScriptCheck } from '../../src/bindings/index.js';
import { everythingPath, faultServerPath, FIXTURES_DIR, typedServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { written } from '../support/written-arguments.js';

const FUNCTIONS = ['mcp_list', 'mcp_describe', 'mcp_call', 'mcp_read', 'mcp_prompt'];
const PLAYWRIGHT = join(FIXTURES_DIR, 'corpus', 'playwright-mcp-0.0.83.json');
const CONFORMANCE = join(FIXTURES_DIR, 'corpus', 'conformance-0.2.0-http-custom-headers.json');

describe('adversarial: the check before a run', function () {
  this.timeout(120_000);
  const t = useTestHost(() => ({
    everything: { command: process.execPath, args: [everythingPath] },
    fault: { command: process.execPath, args: [faultServerPath] },
    playwright: { command: process.execPath, args: [typedServerPath, `--tools-from=${PLAYWRIGHT}`] },
    conformance: { command: process.execPath, args: [typedServerPath, `--tools-from=${CONFORMANCE}`] },
  }));
  const check = (code: string): Promise<ScriptCheck> => {
    assert.ok(t.host instanceof MachineHost);
    return t.host.checkScript(code, { functions: FUNCTIONS });
  };
  const codes = async (code: string): Promise<string[]> => (await check(code)).problems.map((p) => `${p.line}:${p.column} ${p.code}`);

  describe('around it: the run goes on, and the call-time check refuses the call', () => {
    const ways = {
      'an alias of tools': "const t = tools; await t.mcp_call({ server: 'everything', tool: 'eco' });",
      'a destructured function': "const { mcp_call } = tools; await mcp_call({ server: 'everything', tool: 'eco' });",
      'a computed function name': "const f = 'mcp_' + 'call'; await tools[f]({ server: 'everything', tool: 'eco' });",
      'a computed tool name': "await tools.mcp_call({ server: 'everything', tool: ['e', 'c', 'o'].join('') });",
      'the request in a variable': "const request = { server: 'everything', tool: 'eco' }; await tools.mcp_call(request);",
      'a spread after the tool name': "await tools.mcp_call({ server: 'everything', tool: 'echo', ...{ tool: 'eco' } });",
      'globalThis.tools': "await globalThis.tools.mcp_call({ server: 'everything', tool: 'eco' });",
    };
    for (const [way, code] of Object.entries(ways)) {
      it(way, async () => {
        assert.deepEqual(await codes(code), []);
        const record = await t.host.run(code);
        assert.equal(record.error?.code, 'MCP_UNKNOWN_TOOL', JSON.stringify(record.error));
      });
    }
  });

  describe('through it, too big or too slow: bounded, and the run goes on unchecked', () => {
    it('a 1 MB script is not parsed: it runs, with a note in its log', async () => {
      const code = `// tools.mcp_call is named here\nconst s = '${'x'.repeat(1024 * 1024)}';\nreturn s.length;`;
      const started = Date.now();
      const record = await t.host.run(code);
      assert.equal(record.result, 1024 * 1024, JSON.stringify(record.error));
      assert.match(record.logs[0]?.text ?? '', /did not check this script before running it: it is longer than 262144 characters/);
      assert.ok(Date.now() - started < 10_000);
    });

    it('nesting deeper than the parser can follow: no refusal, no crash, the host keeps working', async () => {
      const code = `await tools.mcp_list({});\nreturn ${'['.repeat(50_000)}1${']'.repeat(50_000)};`;
      const record = await t.host.run(code);
      assert.notEqual(record.error?.code, 'SCRIPT_CHECK_FAILED');
      assert.equal(
        (await t.host.run("return (await tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'ok' } })).isError ?? false")).result,
        false,
      );
    });

    it('4,000 call sites are judged in bounded time; past 2,000 the rest is unchecked, with a note', async () => {
      const call = "tools.mcp_call({ server: 'everything', tool: 'get-env' });";
      const code = `if (Date.now() < 0) {\n${Array.from({ length: 4000 }, () => call).join('\n')}\nawait tools.mcp_call({ server: 'everything', tool: 'eco' });\n}\nreturn 1;`;
      const started = Date.now();
      const record = await t.host.run(code);
      assert.equal(record.result, 1, JSON.stringify(record.error));
      assert.match(record.logs.map((l) => l.text).join('\n'), /checked only the first part of this script/);
      assert.ok(Date.now() - started < 15_000, `${Date.now() - started} ms`);
    });

    it('a thousand unknown tool names ask for the tool list twice, not a thousand times; the answer stays bounded', async () => {
      const code = Array.from({ length: 1000 }, (_, i) => `await tools.mcp_call({ server: 'everything', tool: 'nope${i}' });`).join('\n');
      const started = Date.now();
      const record = await t.host.run(code);
      assert.equal(record.error?.code, 'SCRIPT_CHECK_FAILED');
      assert.equal(record.error?.problems?.length, 200, 'problems kept at most 200');
      assert.ok(record.error!.message.length < 16_000, `${record.error!.message.length} characters`);
      assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
    });
  });

  describe('no false refusal: working code a naive check would refuse', () => {
    const working: Record<string, string> = {
      'optional chaining on tools and on the function':
        "await tools?.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'x' } }); await tools.mcp_search?.({ query: 'x' });",
      'a shadowed tools (parameter, block const, catch binding)': [
        "function run(tools) { return tools.mcp_call({ server: 'nope', tool: 'x' }); }",
        '{ const tools = { mcp_cal: async () => 1 }; await tools.mcp_cal({}); }',
        "try { throw { mcp_x: () => 1 }; } catch (tools) { tools.mcp_x({ server: 'nope' }); }",
        'await run({ mcp_call: async () => 1 });',
      ].join('\n'),
      'a var tools declared later in the script (hoisted)': 'const r = await tools.mcp_nope({});\nvar tools = { mcp_nope: async () => 1 };',
      "the object's own methods on tools (feature detection)": "if (tools.hasOwnProperty('mcp_search')) text(tools.toString());",
      'a tool name in a variable': "const tool = 'echo'; await tools.mcp_call({ server: 'everything', tool, arguments: { message: 'x' } });",
      'a value in a variable, a template, a call':
        "const m = 'x'; await tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: `${m}!` } }); await tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: Number('1'), b: m.length } });",
      'a spread that may bring the required property':
        "const base = { a: 1 }; await tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { ...base, b: 2 } });",
      'an unknown property before a spread that may take it away':
        "const o = {}; await tools.mcp_call({ server: 'typed', tool: 'x', arguments: {} }).catch(() => 0); await tools.mcp_call({ server: 'playwright', tool: 'browser_close', arguments: { extra: 1, ...o } });",
      'a required property with a default, left out (Playwright browser_take_screenshot scale)':
        "await tools.mcp_call({ server: 'playwright', tool: 'browser_take_screenshot', arguments: {} });",
      'null for an optional property (the conformance suite)':
        "await tools.mcp_call({ server: 'playwright', tool: 'browser_emulate_media', arguments: { colorScheme: 'dark', media: null } });",
      'arguments: null is sent as {}': "await tools.mcp_call({ server: 'playwright', tool: 'browser_close', arguments: null });",
      'TypeScript around the literals':
        "const n: number = 2; await tools.mcp_call({ server: 'everything', tool: 'get-sum', arguments: { a: 1 as number, b: n } satisfies Record<string, number> });",
      'a tool listed after the cached list was read (the call refreshes once; so does the check)': "await tools.mcp_describe({ server: 'everything' });",
    };
    for (const [what, code] of Object.entries(working)) {
      it(what, async () => assert.deepEqual(await codes(code), []));
    }

    it('a tool an earlier call adds (a server whose tools may change, dynamic toolsets) runs, with a warning', async () => {
      const code =
        "await tools.mcp_call({ server: 'fault', tool: 'add_tool', arguments: { name: 'dyn' } });\nreturn (await tools.mcp_call({ server: 'fault', tool: 'dyn' })).content[0].text;";
      const record = await t.host.run(code);
      assert.equal(record.result, 'dyn', JSON.stringify(record.error));
      assert.match(record.logs[0]?.text ?? '', /^2:55 CHECK_UNKNOWN_TOOL: Server "fault" has no tool "dyn"\..* Its tools may change \(listChanged\)/);
      // The same name without the call before it is still refused.
      assert.deepEqual(await codes("await tools.mcp_call({ server: 'fault', tool: 'dyn2' });"), ['1:47 CHECK_UNKNOWN_TOOL']);
    });

    it("the Playwright MCP corpus and the conformance suite's own arguments, as literals: no mistake", async () => {
      const { tools } = JSON.parse(readFileSync(PLAYWRIGHT, 'utf8')) as { tools: { name: string; inputSchema: Record<string, unknown> }[] };
      const { context } = JSON.parse(readFileSync(CONFORMANCE, 'utf8')) as { context: { toolCalls: { name: string; arguments: unknown }[] } };
      const lines = [
        ...tools.map(
          (tool) =>
            `await tools.mcp_call({ server: 'playwright', tool: ${JSON.stringify(tool.name)}, arguments: ${JSON.stringify(written(tool.inputSchema))} });`,
        ),
        ...context.toolCalls.map(
          (call) => `await tools.mcp_call({ server: 'conformance', tool: ${JSON.stringify(call.name)}, arguments: ${JSON.stringify(call.arguments)} });`,
        ),
      ];
      assert.ok(lines.length > 20);
      assert.deepEqual(await codes(lines.join('\n')), []);
    });
  });
});
