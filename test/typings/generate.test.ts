// generateTypings as a function: determinism, warnings, fallbacks, names, and the ways an
// untrusted schema could escape (comments, string literals, $ref to the network or the disk).
// What the output means to tsc is compile.test.ts's job.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tool } from '@modelcontextprotocol/client';
import ts from 'typescript';
import { isBerryError } from '../../src/common/errors.js';
import { generateTypings, type TypingsServerInput } from '../../src/bindings/typings/index.js';
import { DOWN_SERVER_ERROR, fixtureTools, WEIRD_SERVER_NAME, WEIRD_TOOL_NAME, weirdServerTools } from './fixtures/fixture-tools.js';

const echo: Tool = {
  name: 'echo',
  description: 'Echoes back the input',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};
const sum: Tool = {
  name: 'get-sum',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
};

const fixtureInput = (): TypingsServerInput[] => [
  { server: 'fixture', tools: fixtureTools },
  { server: WEIRD_SERVER_NAME, tools: weirdServerTools },
  { server: 'broken', error: DOWN_SERVER_ERROR },
  { server: 'demo', tools: [sum, echo] },
];

/** The identifiers TypeScript's scanner sees in `code`: what a comment or string hides is not one. */
function identifiers(code: string): Set<string> {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, code);
  const found = new Set<string>();
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.Identifier) found.add(scanner.getTokenText());
  }
  return found;
}

/** The body of `declare namespace <path> { … }`. */
function namespaceBody(code: string, namespacePath: string): string {
  const start = code.indexOf(`declare namespace ${namespacePath} {\n`);
  assert.notEqual(start, -1, `no namespace ${namespacePath}`);
  return code.slice(start, code.indexOf('\n}\n', start));
}

describe('typings: generateTypings', function () {
  this.timeout(20_000);

  it('is deterministic: same servers in any order give byte-identical output', async () => {
    const first = await generateTypings(fixtureInput());
    const again = await generateTypings(fixtureInput());
    const shuffled = await generateTypings(
      fixtureInput()
        .reverse()
        .map((server) => ({ ...server, ...(server.tools ? { tools: [...server.tools].reverse() } : {}) })),
    );
    assert.equal(again, first);
    assert.equal(shuffled, first);
    assert.doesNotMatch(first, /\d{4}-\d{2}-\d{2}T/, 'no timestamps');
  });

  it('sorts servers and tools by name, and keys the map by the real names', async () => {
    const code = await generateTypings([
      { server: 'zeta', tools: [echo] },
      { server: 'alpha', tools: [echo, sum] },
    ]);
    const keys = [...code.matchAll(/^ {4}("[^"]*"): \{$|^ {6}("[^"]*"): \{$/gm)].map((m) => m[1] ?? `  ${m[2]}`);
    assert.deepEqual(keys, ['"alpha"', '  "echo"', '  "get-sum"', '"zeta"', '  "echo"']);
    assert.match(code, /"get-sum": \{\n {8}args: BerryMcp\.Generated\.Alpha\.GetSum\.Input\.Arguments;/);
    assert.match(code, /\/\*\* Echoes back the input \*\/\n {6}"echo"/);
  });

  it('leaves a server that is down out, with a one-line warning at the top', async () => {
    const code = await generateTypings(fixtureInput());
    const header = code.slice(0, code.indexOf('declare namespace'));
    const warning = header.split('\n').find((line) => line.includes('"broken"'));
    assert.ok(warning?.startsWith('// Warning: server "broken" is left out (its tools are unknown): MCP_CONNECT_FAILED: server exited with code 3'));
    assert.doesNotMatch(code, /^ {4}"broken": \{/m);
    assert.match(code, /^ {4}"demo": \{/m);
  });

  it('keeps every hostile description, title, enum value and name inside its comment or string literal', async () => {
    const code = await generateTypings(fixtureInput());
    assert.ok(code.includes('declare const pwned'), 'the hostile text is there (as comments and strings)');
    const names = identifiers(code);
    assert.ok(!names.has('pwned'), 'pwned became code');
    assert.ok(!names.has('X'), 'tsType was injected');
    // No raw line separators anywhere: TypeScript treats them as line breaks.
    assert.doesNotMatch(code, /[\u2028\u2029]/);
    assert.ok(code.includes(`${JSON.stringify(WEIRD_TOOL_NAME).replace('\u2028', '\\u2028')}: {`), 'the weird tool name is a map key');
    assert.ok(code.includes(`${JSON.stringify(WEIRD_SERVER_NAME).replace('\u2028', '\\u2028')}: {`), 'the weird server name is a map key');
  });

  it('gives names that collide once sanitised their own namespaces, and makes any name an identifier', async () => {
    const code = await generateTypings(fixtureInput());
    assert.match(namespaceBody(code, 'BerryMcp.Generated.Fixture.GetSum.Input'), /x: string/);
    assert.match(namespaceBody(code, 'BerryMcp.Generated.Fixture.GetSum_2.Input'), /z: boolean/); // getSum
    assert.match(namespaceBody(code, 'BerryMcp.Generated.Fixture.GetSum_3.Input'), /y: number/); // get_sum
    for (const id of ['Delete', 'Class', '_123start', 'ToolWithDots', 'Tool', 'Record', 'WeirdNameWithQuotesAnd']) {
      assert.ok(code.includes(`declare namespace BerryMcp.Generated.Fixture.${id}.Input {`), id);
    }
    assert.ok(code.includes('declare namespace BerryMcp.Generated.HostileServer.Ping.Input {'));
  });

  it('falls back to an open record, with a comment, for schemas over the limits or broken', async () => {
    const code = await generateTypings(fixtureInput());
    const expectations: [string, RegExp][] = [
      ['Oversized', /the schema is \d+ bytes, over the limit of 262144/],
      ['TooDeep', /the schema nests deeper than the limit of 32/],
      ['RefBomb', /expands past 200000 nodes/],
      ['BadRef', /json-schema-to-typescript could not compile it: Missing \$ref pointer/],
    ];
    for (const [id, reason] of expectations) {
      const body = namespaceBody(code, `BerryMcp.Generated.Fixture.${id}.Input`);
      assert.match(body, reason, id);
      assert.match(body, /\/\*\* Not typed: .*\*\/\n {2}export type Arguments = \{ \[key: string\]: unknown \};/, id);
      assert.match(
        code.slice(0, code.indexOf('declare namespace')),
        new RegExp(`^// Warning: "fixture/[\\w-]+" inputSchema not typed: .*${reason.source}`, 'm'),
      );
    }
  });

  it('honours maxSchemaBytes and maxSchemaDepth, and rejects nonsense limits', async () => {
    const echoBytes = JSON.stringify(echo.inputSchema).length;
    const sumBytes = JSON.stringify(sum.inputSchema).length;
    assert.ok(sumBytes > echoBytes);
    const small = await generateTypings([{ server: 'demo', tools: [echo, sum] }], { maxSchemaBytes: echoBytes });
    assert.match(namespaceBody(small, 'BerryMcp.Generated.Demo.Echo.Input'), /interface Arguments/);
    assert.match(
      namespaceBody(small, 'BerryMcp.Generated.Demo.GetSum.Input'),
      new RegExp(`Not typed: the schema is ${sumBytes} bytes, over the limit of ${echoBytes}`),
    );
    const shallow = await generateTypings([{ server: 'demo', tools: [echo] }], { maxSchemaDepth: 2 });
    assert.match(namespaceBody(shallow, 'BerryMcp.Generated.Demo.Echo.Input'), /nests deeper than the limit of 2/);

    for (const options of [{ maxSchemaBytes: 0 }, { maxSchemaDepth: -1 }, { maxSchemaBytes: 1.5 }, { maxSchemaDepth: Number.NaN }]) {
      await assert.rejects(generateTypings([], options), (error: unknown) => isBerryError(error) && error.code === 'MCP_INVALID_ARGUMENT');
    }
  });

  it('types empty and missing schemas as open records, and says so when no server could be typed', async () => {
    const code = await generateTypings(fixtureInput());
    for (const id of ['Empty', 'NoProperties', 'Missing']) {
      assert.match(namespaceBody(code, `BerryMcp.Generated.Fixture.${id}.Input`), /^ {2}export type Arguments = \{ \[key: string\]: unknown \};$/m, id);
    }
    const none = await generateTypings([{ server: 'down', error: 'spawn ENOENT' }]);
    assert.match(none, /^\/\/ Warning: no server could be typed: scripts accept any server and tool name$/m);
    assert.match(none, /interface Servers \{\n {2}\}/);
  });

  it('types a required property with a default as optional: the call works without it (Playwright MCP 0.0.83)', async () => {
    const screenshot: Tool = {
      name: 'browser_take_screenshot',
      inputSchema: {
        type: 'object',
        properties: { scale: { type: 'string', enum: ['css', 'device'], default: 'css' }, type: { type: 'string' } },
        required: ['scale'],
      },
    };
    const body = namespaceBody(
      await generateTypings([{ server: 'playwright', tools: [screenshot] }]),
      'BerryMcp.Generated.Playwright.BrowserTakeScreenshot.Input',
    );
    assert.match(body, /^\s*scale\?: \("css" \| "device"\)$/m, body);
  });

  it('keeps the first of duplicate servers and tools, with a warning', async () => {
    const code = await generateTypings([
      { server: 'demo', tools: [echo, { ...sum, name: 'echo' }] },
      { server: 'demo', tools: [sum] },
    ]);
    assert.match(code, /^\/\/ Warning: server "demo" is listed twice: the second entry is left out$/m);
    assert.match(code, /^\/\/ Warning: tool "demo\/echo" is listed twice: the second entry is left out$/m);
    assert.equal(code.match(/"echo": \{/g)?.length, 1);
    assert.doesNotMatch(code, /"get-sum"/);
  });

  it('does not change its input', async () => {
    const input = fixtureInput();
    const before = JSON.stringify(input);
    await generateTypings(input);
    assert.equal(JSON.stringify(input), before);
  });

  describe('a $ref outside the schema', () => {
    let server: http.Server;
    let requests = 0;
    let base: string;
    let dir: string;

    before(async () => {
      server = http.createServer((_req, res) => {
        requests++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ type: 'object', properties: { leakedFromNetwork: { type: 'string' } } }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berry-typings-ref-'));
      fs.writeFileSync(path.join(dir, 'local.json'), JSON.stringify({ type: 'object', properties: { leakedFromFile: { type: 'string' } } }));
    });

    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('is never fetched nor read: the property becomes unknown, with a warning', async () => {
      const file = path.join(dir, 'local.json');
      const refs = [`${base}/schema.json`, `${base}/schema.json#/properties`, pathToFileURL(file).href, file, 'local.json', '//127.0.0.1/x'];
      const tools: Tool[] = refs.map((ref, i) => ({
        name: `ref-${i}`,
        inputSchema: {
          type: 'object',
          properties: { direct: { $ref: ref }, nested: { type: 'array', items: { $ref: '#/$defs/Remote' } } },
          required: ['direct'],
          $defs: { Remote: { $ref: ref } },
        },
      }));
      tools.push({ name: 'root-remote', inputSchema: { $ref: `${base}/root.json` } as unknown as Tool['inputSchema'] });
      const code = await generateTypings([{ server: 'refs', tools }]);
      assert.equal(requests, 0, 'a $ref was fetched');
      assert.doesNotMatch(code, /leakedFrom/);
      assert.match(namespaceBody(code, 'BerryMcp.Generated.Refs.Ref0.Input'), /direct: unknown/);
      assert.match(
        code,
        new RegExp(`^// Warning: "refs/ref-0" inputSchema typed loosely: external \\$ref "${base.replace(/\./g, '\\.')}/schema\\.json" not followed$`, 'm'),
      );
    });
  });
});
