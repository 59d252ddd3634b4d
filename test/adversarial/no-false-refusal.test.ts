// No false refusal. The argument check refuses only what is certainly wrong: the corpus is real
// servers' tools, served exactly as they listed them (typed-server.mjs --tools-from): Playwright
// MCP 0.0.83, the conformance suite's http-custom-headers with its own arguments, and the
// reference servers listed live; every call a model writes from those schemas must reach the
// server. Then the attacks on the loosened check: the cheapest ways to get a certainly wrong call
// past it, or to make a hostile schema hurt the host. The OAuth issuer check takes the same-origin
// issuer of the 2025-03-26 fallback: the attacks are the cheapest issuers that are not that. The
// server/discover probe gives up early so a 2025 server still connects: the attack is a server
// that keeps every attempt of the start going, which must still end within the start cap.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createHost } from '../../src/host.js';
import { isBerryError } from '../../src/common/errors.js';
import type { LogEvent } from '../../src/bindings/log.js';
import { ArgumentChecker } from '../../src/bindings/operations/arguments/argument-check.js';
import { everythingPath, filesystemPath, FIXTURES_DIR, memoryPath, typedServerPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { writeConfig } from '../support/write-config.js';
import { written } from '../support/written-arguments.js';
import { faultSuite } from '../auth/fault-suite.js';
import { startV2Http, type PortFixture } from '../support/fixture-servers.js';

type Schema = Record<string, unknown>;
interface Listed {
  readonly tools: readonly { readonly name: string; readonly inputSchema: Schema }[];
}

const corpus = (file: string): string => join(FIXTURES_DIR, 'corpus', file);
const PLAYWRIGHT = corpus('playwright-mcp-0.0.83.json');
const CONFORMANCE = corpus('conformance-0.2.0-http-custom-headers.json');
const REFERENCE = ['everything', 'filesystem', 'memory'] as const;

/** The live tools/list of the reference servers, each written to dir/NAME.json as berry-mcp describes them. */
async function listReferenceServers(dir: string): Promise<void> {
  const config = writeConfig(join(dir, 'reference'), {
    everything: { command: process.execPath, args: [everythingPath] },
    filesystem: { command: process.execPath, args: [filesystemPath, dir] },
    memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') } },
  });
  const host = createHost({ cwd: dir, configPath: config });
  try {
    for (const server of REFERENCE) {
      const status = (await host.list({ server })).servers[0];
      assert.ok(status?.status === 'connected', JSON.stringify(status));
      const tools = [];
      for (const { name } of status.tools) {
        const described = await host.describe({ server, tool: name, schemas: true });
        assert.ok('inputSchema' in described && described.inputSchema !== undefined, name);
        tools.push({ name, inputSchema: described.inputSchema });
      }
      writeFileSync(join(dir, `${server}.json`), JSON.stringify({ tools }));
    }
  } finally {
    await host.close();
  }
}

describe('adversarial: no false refusal of a working call', function () {
  this.timeout(90_000);
  let callLog = '';
  const logs: LogEvent[] = [];
  const replay = (file: string): Record<string, unknown> => ({
    command: process.execPath,
    args: [typedServerPath, `--tools-from=${file}`],
    env: { FIXTURE_CALL_LOG: callLog },
  });
  const t = useTestHost(
    async (dir) => {
      callLog = join(dir, 'calls.log');
      await listReferenceServers(dir);
      return {
        playwright: replay(PLAYWRIGHT),
        conformance: replay(CONFORMANCE),
        ...Object.fromEntries(REFERENCE.map((server) => [server, replay(join(dir, `${server}.json`))])),
      };
    },
    { options: { onLog: (event) => logs.push(event) } },
  );
  const reached = (): { name: string; arguments: unknown }[] =>
    existsSync(callLog)
      ? readFileSync(callLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { name: string; arguments: unknown })
      : [];

  /** Calls every `[tool, args]` and checks each reached the server as given. */
  async function allReach(server: string, calls: readonly (readonly [string, Record<string, unknown>])[]): Promise<void> {
    const before = reached().length;
    for (const [tool, args] of calls) {
      await t.host
        .call({ server, tool, arguments: args })
        .catch((error: unknown) => assert.fail(`${server} ${tool} ${JSON.stringify(args)}: ${String(error)}`));
    }
    assert.deepEqual(
      reached().slice(before),
      calls.map(([name, args]) => ({ name, arguments: args })),
    );
  }

  it('Playwright MCP 0.0.83: browser_take_screenshot without scale (required, default "css") and every tool as a model writes it', async () => {
    const { tools } = JSON.parse(readFileSync(PLAYWRIGHT, 'utf8')) as Listed;
    await allReach('playwright', [
      ['browser_take_screenshot', {}],
      ['browser_take_screenshot', { type: 'jpeg', fullPage: true, filename: 'page.jpeg' }],
      ['browser_console_messages', {}],
      ['browser_network_requests', { filter: '/api/' }],
      ['browser_emulate_media', { colorScheme: 'dark', media: null }],
      ...tools.map((tool) => [tool.name, written(tool.inputSchema) as Record<string, unknown>] as const),
    ]);
  });

  it("the 2026-07-28 suite's http-custom-headers: its own arguments, verbose: null included, as given", async () => {
    const { context } = JSON.parse(readFileSync(CONFORMANCE, 'utf8')) as { context: { toolCalls: { name: string; arguments: Record<string, unknown> }[] } };
    assert.equal(context.toolCalls[1]?.arguments['verbose'], null);
    await allReach(
      'conformance',
      context.toolCalls.map((call) => [call.name, call.arguments] as const),
    );
  });

  for (const server of REFERENCE) {
    it(`the reference ${server} server's tools, listed live: every tool as a model writes it`, async () => {
      const { tools } = JSON.parse(readFileSync(join(t.dir, `${server}.json`), 'utf8')) as Listed;
      assert.ok(tools.length >= 8, `${tools.length} tools`);
      await allReach(
        server,
        tools.map((tool) => [tool.name, written(tool.inputSchema) as Record<string, unknown>] as const),
      );
      assert.deepEqual(
        logs.filter((e) => e.server === server && /cannot be checked/.test(e.message)),
        [],
        'every schema is checked',
      );
    });
  }

  it('Playwright MCP itself: browser_take_screenshot {} reaches the server, which answers', async () => {
    const cli = playwrightCli();
    // Its artifacts and caches stay in the test's own folder.
    const own = join(t.dir, 'playwright');
    const entry = {
      command: process.execPath,
      args: [cli, '--headless', '--isolated', `--output-dir=${join(own, 'out')}`],
      env: { TMPDIR: own, XDG_CACHE_HOME: join(own, 'cache') },
    };
    const host = t.open({ configPath: writeConfig(own, { pw: entry }) });
    const result = await host.call({ server: 'pw', tool: 'browser_take_screenshot', arguments: {} });
    // Without a browser the server says so itself: the call went out and came back.
    assert.ok(Array.isArray(result.content) && result.content.length > 0, JSON.stringify(result));
  });
});

/** @playwright/mcp's cli.js (a devDependency; its exports map hides the file, not package.json), or BERRY_PLAYWRIGHT_MCP. */
function playwrightCli(): string {
  const given = process.env['BERRY_PLAYWRIGHT_MCP'];
  if (given) return given;
  return join(dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
}

describe('adversarial: the loosened argument check still refuses what is certainly wrong', () => {
  const events: LogEvent[] = [];
  const checker = new ArgumentChecker((event) => events.push(event));
  let n = 0;
  /** The refusal's problem text, or undefined when the call would go out. */
  async function verdict(inputSchema: Schema, args: Record<string, unknown>): Promise<string | undefined> {
    try {
      await checker.check('hostile', { name: `t${n++}`, inputSchema: inputSchema as { type: 'object' } }, args);
      return undefined;
    } catch (error) {
      assert.ok(isBerryError(error) && error.code === 'MCP_INVALID_ARGUMENT', String(error));
      return /was not called: (.*)\. Nothing was sent/.exec(error.message)?.[1];
    }
  }
  const object = (properties: Schema, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra });

  it('null for a required property without a default is still refused, at any depth', async () => {
    assert.equal(await verdict(object({ a: { type: 'string' } }, { required: ['a'] }), { a: null }), 'arguments.a: expected string, got null');
    const nested = object({ o: object({ v: { type: 'boolean' } }, { required: ['v'] }) });
    assert.equal(await verdict(nested, { o: { v: null } }), 'arguments.o.v: expected boolean, got null');
    assert.equal(await verdict(object({ l: { type: 'array', items: { type: 'string' } } }), { l: [null] }), 'arguments.l[0]: expected string, got null');
  });

  it("a default excuses only its own property: not a nested required one, not one named 'default', not one whose default sits in another branch", async () => {
    const parent = object({ o: object({ x: { type: 'string' } }, { required: ['x'], default: {} }) }, { required: ['o'] });
    assert.equal(await verdict(parent, {}), undefined, 'o itself has a default');
    assert.equal(await verdict(parent, { o: {} }), 'arguments.o.x: missing (required, expected string)');
    const named = object({ a: object({ default: { type: 'string', default: 'x' } }) }, { required: ['a'] });
    assert.equal(await verdict(named, {}), 'arguments.a: missing (required, expected object)');
    const elsewhere = object({ a: { type: 'string' } }, { required: ['a'], anyOf: [object({ a: { type: 'string', default: 'x' } })] });
    assert.equal(await verdict(elsewhere, {}), 'arguments.a: missing (required, expected string)');
  });

  it('oneOf read as anyOf still refuses a value no branch takes; a plain object still refuses a name it does not declare', async () => {
    const tagged = object({
      shape: {
        oneOf: [
          object({ kind: { const: 'circle' }, r: { type: 'number' } }, { required: ['kind'] }),
          object({ kind: { const: 'square' } }, { required: ['kind'] }),
        ],
      },
    });
    assert.equal(await verdict(tagged, { shape: { kind: 'circle', r: 2 } }), undefined);
    assert.match((await verdict(tagged, { shape: { kind: 'hexagon' } })) ?? 'went out', /^arguments\.shape\.kind: expected "(circle|square)", got "hexagon"/);
    // A composition deeper down does not open the root: its unknown names are still refused.
    const root = object({ a: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, { additionalProperties: false });
    assert.equal(await verdict(root, { a: 'x', b: 1 }), 'arguments.b: not a parameter of this tool (it takes: a)');
  });

  it("a hostile schema changes nothing outside its copy: no prototype, not the tool's own schema", async () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","default":"x","polluted":true},"p":{"type":"string"}},"required":["__proto__","p"]}',
    ) as Schema;
    const before = JSON.stringify(schema);
    assert.equal(await verdict(schema, { p: 'y' }), undefined, 'a defaulted __proto__ is not missing');
    assert.equal(await verdict(schema, {}), 'arguments.p: missing (required, expected string)');
    assert.equal(JSON.stringify(schema), before, "the tool's schema is as the server listed it");
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal(Object.getPrototypeOf(schema['properties']), Object.prototype);
  });

  it('a $ref cycle, a schema past 200 levels and one built to make the rewrite quadratic neither hang nor crash the host', async () => {
    const cycle = object({ a: { $ref: '#/properties/a' }, b: { $ref: '#/properties/b' } }, { required: ['a'] });
    await verdict(cycle, { b: null });
    let deep: Schema = { type: 'string' };
    for (let i = 0; i < 300; i++) deep = object({ d: deep });
    assert.equal(await verdict(deep, { d: { d: 1 } }), undefined, 'goes out unchecked');
    assert.ok(
      events.some((e) => e.server === 'hostile' && /cannot be checked \(nested deeper than 200 levels\)/.test(e.message)),
      JSON.stringify(events),
    );
    // 190 nested optional objects (each wrapped, so every ref through them is rewritten) and as
    // many refs to the bottom as 256 KB holds: each rewrite walks the whole path.
    let chain: Schema = { type: 'string' };
    for (let i = 0; i < 190; i++) chain = object({ n: chain });
    const pointer = `#/properties/root${'/properties/n'.repeat(190)}`;
    const refs = Object.fromEntries(Array.from({ length: 95 }, (_, i) => [`r${i}`, { $ref: pointer }]));
    const wide = object({ root: chain, ...refs });
    assert.ok(JSON.stringify(wide).length < 256 * 1024);
    const started = Date.now();
    assert.equal(await verdict(wide, { r1: 'x' }), undefined);
    assert.equal(await verdict(wide, { r2: 3 }), 'arguments.r2: expected string, got 3 (number)');
    assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
  });
});

describe("adversarial: the 2025-03-26 issuer fallback takes the server's own origin only", function () {
  this.timeout(60_000);
  const suite = faultSuite('berry-adv-issuer-');
  const signIn = (): Promise<unknown> => suite.hosts.open(suite.configPath, suite.freshTokenDir()).host.call({ server: 'docs', tool: 'whoami' });
  const cases: [string, string, RegExp][] = [
    ['another origin', 'prm=none&issuer=wrong', /names the issuer "http:\/\/other-issuer\.example\/", which is not on that origin/],
    ['https for an http origin', 'prm=none&issuer=https', /names the issuer "https:\/\/127\.0\.0\.1:\d+\/oauth", which is not on that origin/],
    [
      'the origin as user info before another host',
      'prm=none&issuer=userinfo',
      /names the issuer "http:\/\/127\.0\.0\.1:\d+@other-issuer\.example\/oauth", which is not on that origin/,
    ],
    [
      'a path where the protected-resource metadata named the origin',
      'issuer=path',
      /fetched for http:\/\/127\.0\.0\.1:\d+\/ names the issuer "http:\/\/127\.0\.0\.1:\d+\/oauth" \(RFC 8414/,
    ],
  ];
  for (const [what, fault, message] of cases) {
    it(`refuses ${what} before anything is registered`, async () => {
      await suite.fault(fault);
      const before = await suite.fixture.stats();
      await assert.rejects(signIn(), (error: unknown) => {
        assert.ok(isBerryError(error) && error.code === 'MCP_AUTH_ISSUER_MISMATCH', String(error));
        assert.match(error.message, message);
        return true;
      });
      const after = await suite.fixture.stats();
      assert.equal(after.registrations, before.registrations, 'nothing registered with it');
      assert.equal(after.authorizations, before.authorizations);
    });
  }
});

describe('adversarial: a server cannot stretch a start past its cap through the probe', function () {
  this.timeout(60_000);
  let modern: PortFixture;
  // Silent on server/discover, and refusing initialize as 2026-07-28-only: every fallback is taken
  // (probe, initialize, the probe again alone) and none answers.
  const t = useTestHost(async () => {
    modern = await startV2Http(['--modern-only', '--slow-discover=60000']);
    return { stretch: { url: modern.url, timeout: 9 } };
  });
  after(async () => modern?.close());

  it('every attempt shares the one start budget: it fails within 9 s, naming the request that went unanswered', async () => {
    const started = Date.now();
    const status = (await t.host.list({ server: 'stretch' })).servers[0];
    const ms = Date.now() - started;
    assert.ok(status?.status === 'error' && status.error.code === 'MCP_CONNECT_FAILED', JSON.stringify(status));
    assert.match(status.error.message, /no answer to server\/discover within 9 s/);
    // A fresh budget for the attempt after the probe (3 s) would end at 12 s.
    assert.ok(ms < 10_500, `${ms} ms`);
  });
});
