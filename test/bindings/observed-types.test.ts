// Output types learned from results: the typed fixture (tools without outputSchema returning
// structured data, one with an outputSchema), shown by describe, saved beside the catalogs
// without values, merged across hosts and processes, dropped when the catalog changes.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost, type Host } from '../../src/host.js';
import type { ServerDescription, ToolDescription } from '../../src/bindings/contract.js';
import { inferShape } from '../../src/bindings/catalog/observed-types/infer.js';
import { mergeShapes } from '../../src/bindings/catalog/observed-types/merge.js';
import { shapeText } from '../../src/bindings/catalog/observed-types/render.js';
import { MAX_SHAPE_BYTES, parseShape } from '../../src/bindings/catalog/observed-types/shape.js';
import { maskKeys } from '../../src/bindings/catalog/observed-types/mask-keys.js';
import { parseObserved } from '../../src/bindings/catalog/observed-types/observation.js';
import { FLUSH_DELAY_MS } from '../../src/bindings/catalog/observed-types/observer.js';
import { berry } from '../support/berry-cli.js';
import { memoryPath, typedServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const GRAPH =
  '{ entities: { name: string; entityType: string; observations: string[] }[]; relations: { from: string; to: string; relationType: string; weight: number }[]; cursor?: string }';
/** Every string and number the fixture's results hold: none may reach a saved file. */
const RESULT_VALUES = [
  'Alice-Secret-Name',
  'Bob-Private',
  'likes-hidden-tea',
  '918273645',
  'knows',
  'person',
  '0.7371',
  'cursor-token-5531',
  '77123',
  '3.25',
  'private.txt',
  'Carol-Hidden',
  'Dave-Hidden',
  'user-83721',
  'dave@example.com',
  'undeclared-extra',
];

describe('output types learned from results', function () {
  this.timeout(60_000);

  describe('the shape of one value, and merging', () => {
    const text = (value: unknown): string => shapeText(inferShape(value));

    it('keeps kinds and keys, never a string, number or boolean', () => {
      const shape = inferShape({ name: 'secret', n: 918273645, ok: true, none: null, tags: ['x', 'y'], empty: [] });
      assert.equal(shapeText(shape), '{ name: string; n: number; ok: boolean; none: null; tags: string[]; empty: unknown[] }');
      assert.doesNotMatch(JSON.stringify(shape), /secret|918273645|true/);
    });

    it('turns objects keyed by data into maps: ids, e-mails, dates, paths, too many keys, many same-shaped values', () => {
      assert.equal(text({ 'user-83721': { a: 1 } }), '{ [key: string]: { a: number } }');
      assert.equal(text({ 'bob@example.com': 1, alice: 2 }), '{ [key: string]: number }');
      assert.equal(text({ '2026-12-01': 'x' }), '{ [key: string]: string }');
      assert.equal(text({ '/etc/passwd': 'x' }), '{ [key: string]: string }');
      assert.equal(text({ deadbeef0a1b: 'x' }), '{ [key: string]: string }');
      assert.equal(text(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]))), '{ [key: string]: number }');
      const people = Object.fromEntries(['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'].map((n) => [n, { age: 1 }]));
      assert.equal(text(people), '{ [key: string]: { age: number } }');
      // Field names that look like field names stay.
      assert.equal(text({ '@id': 'x', 'content-type': 'y', utf8: true }), '{ "@id": string; "content-type": string; utf8: boolean }');
    });

    it('makes fields seen in some results optional, keeps unions bounded, and maps keys that vary across calls', () => {
      const merged = mergeShapes(inferShape({ a: 1, b: 'x' }), inferShape({ a: 'y', c: null }));
      assert.equal(shapeText(merged), '{ a: string | number; b?: string; c?: null }');
      const wide = [1, 'x', true, null, { o: 1 }, [1]].map(inferShape).reduce(mergeShapes);
      assert.equal(wide, 'unknown');
      assert.equal(text([1, 'x', { a: 1 }]), '({ a: number } | string | number)[]');
      let varying = inferShape({ k1: 1, k2: 1 });
      for (let i = 3; i < 10; i += 2) varying = mergeShapes(varying, inferShape({ [`k${i}`]: 1, [`k${i + 1}`]: 2 }));
      assert.equal(shapeText(varying), '{ [key: string]: number }');
    });

    it('samples long arrays, bounds depth and the size of one tool', () => {
      const long = Array.from({ length: 100_000 }, (_, i) => (i === 50_000 ? 'middle' : i));
      assert.equal(text(long), 'number[]', 'the middle is not looked at');
      let deep: unknown = 'leaf';
      for (let i = 0; i < 20; i++) deep = { d: deep };
      assert.match(text(deep), /\{ d: unknown \}/);
      const wide = Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [
          `field${String.fromCharCode(97 + (i % 26))}${i}`,
          Object.fromEntries(Array.from({ length: 30 }, (_, j) => [`inner${j}x`, { x: 1 }])),
        ]),
      );
      assert.ok(JSON.stringify(inferShape(wide)).length <= MAX_SHAPE_BYTES);
    });

    it('turns an object whose key holds a secret into a map, at any depth; a file is read through the same mask', () => {
      const mask = (key: string): string => key.replaceAll('Key-Secret-77', '***');
      const shape = inferShape({ ok: 1, nested: { 'Key-Secret-77': { a: 1 }, other: { a: 2 } }, list: [{ 'Key-Secret-77': 'x' }] });
      const masked = maskKeys(shape, mask);
      assert.equal(shapeText(masked), '{ ok: number; nested: { [key: string]: { a: number } }; list: { [key: string]: string }[] }');
      assert.doesNotMatch(JSON.stringify(masked), /Key-Secret/);
      const plain = inferShape({ a: { b: [{ c: 1 }] } });
      assert.equal(maskKeys(plain, mask), plain, 'nothing to mask: the same shape');
      const file = {
        format: 1,
        catalog: 'c1',
        tools: [
          ['t', 2, 'structuredContent', shape],
          ['Key-Secret-77', 1, 'text', 'string'],
        ],
      };
      const read = parseObserved(file, 'c1', mask);
      assert.deepEqual([...read.keys()], ['t'], 'a tool whose name holds a secret is dropped');
      assert.doesNotMatch(JSON.stringify([...read.values()]), /Key-Secret/);
    });

    it('reads back only shapes it writes', () => {
      assert.deepEqual(parseShape({ o: [['a', 1, 'string']], n: 1 }), { o: [['a', 1, 'string']], n: 1 });
      for (const junk of ['text', 5, { o: [['a', 2, 'string']], n: 1 }, { u: ['string'] }, { a: 'secret' }, { o: [['a', 1, 'string']], n: 1, v: 'x' }]) {
        assert.equal(parseShape(junk), undefined, JSON.stringify(junk));
      }
    });
  });

  describe('through the host (typed fixture)', () => {
    let tmp: ReturnType<typeof tempDir>;
    let catalogs: string;
    let flag: string;
    const hosts: Host[] = [];

    before(() => {
      tmp = tempDir();
      catalogs = join(tmp.dir, 'catalogs');
      flag = join(tmp.dir, 'extra-tool');
      writeConfig(tmp.dir, { typed: { command: process.execPath, args: [typedServerPath, `--extra-tool-if=${flag}`] } });
    });
    after(async () => {
      await Promise.all(hosts.map((h) => h.close()));
      tmp.cleanup();
    });

    const newHost = (saved = true): Host => {
      const host = createHost({ cwd: tmp.dir, configPath: 'mcp.json', ...(saved ? { savedCatalogs: { dir: catalogs } } : {}) });
      hosts.push(host);
      return host;
    };
    const describeTool = async (host: Host, tool: string): Promise<ToolDescription> => (await host.describe({ server: 'typed', tool })) as ToolDescription;
    const observedFile = (): string | undefined => {
      const name = existsSync(catalogs) ? readdirSync(catalogs).find((f) => f.endsWith('.observed.json')) : undefined;
      return name === undefined ? undefined : readFileSync(join(catalogs, name), 'utf8');
    };

    it('describe shows the merged type after a few calls; a declared outputSchema keeps its type', async () => {
      const host = newHost();
      assert.equal((await describeTool(host, 'read_graph')).returns, undefined, 'nothing observed yet');
      for (const page of [1, 2, 1]) await host.call({ server: 'typed', tool: 'read_graph', arguments: { page } });
      await host.call({ server: 'typed', tool: 'search_text', arguments: { query: 'q' } });
      await host.call({ server: 'typed', tool: 'declared', arguments: {} });
      await host.call({ server: 'typed', tool: 'users_by_id', arguments: {} });
      assert.equal((await describeTool(host, 'read_graph')).returns, `(observed over 3 calls) ${GRAPH}`);
      assert.equal(
        (await describeTool(host, 'search_text')).returns,
        '(observed over 1 call, JSON in content[0].text) { hits: { path: string; score: number }[]; total: number }',
      );
      const declared = await describeTool(host, 'declared');
      assert.equal(declared.returns, undefined);
      assert.equal(declared.structuredContent, '{ count: number }');
      const server = (await host.describe({ server: 'typed' })) as ServerDescription;
      assert.equal(server.tools['read_graph'], `({ page?: number }) returns (observed over 3 calls) ${GRAPH} — The knowledge graph (page 2 adds a cursor).`);
      assert.equal(
        server.tools['users_by_id'],
        '() returns (observed over 1 call) { users: { [key: string]: { name: string; admin: boolean } } } — A map keyed by user ids and e-mail addresses.',
      );
      assert.equal(server.tools['declared'], '() => { count: number } — Declares an outputSchema.');
      const typings = await host.typings({ server: 'typed' });
      assert.match(typings, /\/\*\* observed over 3 calls \*\/\n\s+structured: BerryMcp\.Generated\.Typed\.ReadGraph\.Observed\.Returns;/);
      assert.match(typings, /export type Returns = \{ entities: \{ name: string; entityType: string; observations: string\[\] \}\[\];/);
      assert.equal(observedFile(), undefined, 'not written on the call path');
      await host.list({ server: 'typed' });
      await host.close();
      const file = observedFile();
      assert.ok(file !== undefined, 'written at close');
      assert.doesNotMatch(file, /"declared"/);
      // Neither the observed types nor the saved catalog beside them hold a value of any result.
      const files = readdirSync(catalogs);
      assert.equal(files.length, 2, files.join(', '));
      for (const name of files) {
        const text = readFileSync(join(catalogs, name), 'utf8');
        for (const value of RESULT_VALUES) assert.ok(!text.includes(value), `${value} is in ${name}`);
      }
    });

    it('a new host reads the saved types and adds its own calls; a write waits for the flush delay', async () => {
      const host = newHost();
      assert.equal((await describeTool(host, 'read_graph')).returns, `(observed over 3 calls) ${GRAPH}`);
      const before = observedFile();
      await host.call({ server: 'typed', tool: 'read_graph', arguments: {} });
      assert.equal((await describeTool(host, 'read_graph')).returns, `(observed over 4 calls) ${GRAPH}`);
      assert.equal(observedFile(), before, 'not written at once');
      await new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS + 500));
      assert.match(observedFile() ?? '', /\["read_graph",4,/, 'written after the delay, before close');
      await host.close();
    });

    it("each client sees only what its own calls taught; a client's learning is never saved", async () => {
      const host = newHost();
      const [alice, bob] = [{}, {}];
      await host.call({ server: 'typed', tool: 'search_text', arguments: { query: 'a' } }, { client: alice });
      const seen = async (client?: object): Promise<string | undefined> =>
        ((await host.describe({ server: 'typed', tool: 'search_text' }, client ? { client } : {})) as ToolDescription).returns;
      assert.match((await seen(alice)) ?? '', /^\(observed over 1 call, JSON/);
      assert.equal(await seen(bob), undefined, "bob's describe shows alice's type");
      assert.doesNotMatch(await host.typings({ server: 'typed', client: bob }), /SearchText\.Observed/);
      assert.match(await host.typings({ server: 'typed', client: alice }), /SearchText\.Observed/);
      // The host's own learning (and its file) holds the one call of the first test, not alice's.
      assert.match((await seen()) ?? '', /^\(observed over 1 call, JSON/);
      await host.close();
      assert.match(observedFile() ?? '', /\["search_text",1,/);
    });

    it('without saved catalogs, types are learned in memory only', async () => {
      const host = newHost(false);
      await host.call({ server: 'typed', tool: 'search_text', arguments: { query: 'x' } });
      assert.match((await describeTool(host, 'search_text')).returns ?? '', /^\(observed over 1 call, JSON/);
      await host.close();
    });

    it('drops what was learned when the server lists a different catalog', async () => {
      writeFileSync(flag, '');
      try {
        const host = newHost();
        assert.equal((await describeTool(host, 'read_graph')).returns, undefined);
        await host.call({ server: 'typed', tool: 'read_graph', arguments: {} });
        assert.equal(
          (await describeTool(host, 'read_graph')).returns,
          `(observed over 1 call) { entities: { name: string; entityType: string; observations: string[] }[]; relations: { from: string; to: string; relationType: string; weight: number }[] }`,
        );
        await host.close();
        assert.match(observedFile() ?? '', /\["read_graph",1,/);
      } finally {
        rmSync(flag);
      }
    });
  });

  it("keeps server-memory's declared output types (it declares an outputSchema on every tool)", async () => {
    const tmp = tempDir();
    const host = createHost({
      cwd: tmp.dir,
      configPath: writeConfig(tmp.dir, { memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(tmp.dir, 'memory.jsonl') } } }),
    });
    try {
      await host.call({ server: 'memory', tool: 'create_entities', arguments: { entities: [{ name: 'Alice', entityType: 'person', observations: ['x'] }] } });
      for (let i = 0; i < 2; i++) await host.call({ server: 'memory', tool: 'read_graph', arguments: {} });
      const described = (await host.describe({ server: 'memory', tool: 'read_graph' })) as ToolDescription;
      assert.equal(described.returns, undefined);
      assert.match(described.structuredContent ?? '', /^\{ entities: /);
    } finally {
      await host.close();
      tmp.cleanup();
    }
  });

  it('merges the calls of separate CLI processes: two `call`s, then `describe` in a third', async () => {
    const tmp = tempDir();
    try {
      writeConfig(tmp.dir, { typed: { command: process.execPath, args: [typedServerPath] } });
      const env = { XDG_CACHE_HOME: join(tmp.dir, 'cache') };
      for (const page of [1, 2]) {
        const call = await berry(['call', 'typed', 'read_graph', `page=${page}`, '--config', 'mcp.json'], { cwd: tmp.dir, env });
        assert.equal(call.code, 0, call.stderr);
      }
      const described = await berry(['describe', 'typed', 'read_graph', '--config', 'mcp.json'], { cwd: tmp.dir, env });
      assert.equal(described.code, 0, described.stderr);
      assert.match(described.stdout, new RegExp(`^returns \\(observed over 2 calls\\) ${GRAPH.replace(/[{}()[\]?|]/g, '\\$&')}$`, 'm'));
      const refused = await berry(['call', 'typed', 'add', '{"a":1,"b":"40"}', '--config', 'mcp.json'], { cwd: tmp.dir, env });
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /arguments\.b: expected number, got "40" \(string\)\. Nothing was sent/);
    } finally {
      tmp.cleanup();
    }
  });
});
