// The pure parts of discovery: schema → one-line TypeScript, catalog lines, closest names, paging.
import assert from 'node:assert/strict';
import { ProtocolError as McpError, ProtocolErrorCode as ErrorCode, type Tool } from '@modelcontextprotocol/client';
import { closestFirst, nameList } from '../../src/common/closest-names.js';
import { promptLine, resourceLine, toolLine, typeText } from '../../src/bindings/catalog/describe-format.js';
import { listAllPages } from '../../src/bindings/catalog/list-pages.js';

describe('describe format', () => {
  const schema = {
    type: 'object',
    properties: {
      a: { $ref: '#/$defs/Point' },
      list: { type: 'array', items: { $ref: '#/$defs/Point' } },
      n: { anyOf: [{ type: 'string' }, { type: 'number' }], description: 'a */ tricky\ndescription' },
    },
    required: ['a'],
    $defs: { Point: { type: 'object', title: 'Point', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x'] } },
  };

  it('renders a schema as one line, named sub-types after "where", comments defused', async () => {
    assert.equal(
      await typeText(schema, 'Arguments', true),
      '{ a: Point; list?: Point[]; /** a *\\/ tricky description */ n?: (string | number) } where Point = { x: number; y?: number }',
    );
    assert.equal(await typeText(schema, 'Arguments', false), '{ a: Point; list?: Point[]; n?: (string | number) } where Point = { x: number; y?: number }');
  });

  it('makes catalog lines with flags for read-only, destructive and task tools', async () => {
    const tool: Tool = {
      name: 'wipe',
      description: 'Deletes everything. Really.',
      inputSchema: { type: 'object', properties: { force: { type: 'boolean' } } },
      annotations: { destructiveHint: true },
      execution: { taskSupport: 'optional' },
    };
    assert.equal(await toolLine(tool), '({ force?: boolean }) — Deletes everything. [destructive, task optional]');
    assert.equal(await toolLine({ name: 'ping', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }), '() [readOnly]');
    assert.equal(resourceLine({ uri: 'docs://a/readme.md', name: 'readme.md', mimeType: 'text/markdown' }), '(text/markdown)');
    assert.equal(promptLine({ name: 'p', arguments: [{ name: 'a', required: true }, { name: 'b' }], description: 'Say it.' }), '(a, b?) — Say it.');
  });
});

describe('closest names', () => {
  it('orders candidates closest first, containment counting as close', () => {
    assert.deepEqual(closestFirst('list_dir', ['read_file', 'list_directory', 'list_allowed']).slice(0, 1), ['list_directory']);
    assert.equal(nameList('x', []), '(none)');
    assert.match(
      nameList(
        't',
        Array.from({ length: 25 }, (_, i) => `t${i}`),
      ),
      / and 5 more$/,
    );
  });
});

describe('list pages', () => {
  const pages = (count: number): Map<string | undefined, { items: string[]; nextCursor?: string }> => {
    const map = new Map<string | undefined, { items: string[]; nextCursor?: string }>();
    for (let i = 0; i < count; i++) map.set(i === 0 ? undefined : `c${i}`, { items: [`i${i}`, 'dup'], ...(i + 1 < count ? { nextCursor: `c${i + 1}` } : {}) });
    return map;
  };

  it('follows cursors, drops duplicates, stops at the page cap', async () => {
    const three = pages(3);
    const listed = await listAllPages(
      async (c) => three.get(c)!,
      (x) => x,
    );
    assert.deepEqual(listed, { items: ['i0', 'dup', 'i1', 'i2'], truncated: false });
    const many = pages(80);
    const capped = await listAllPages(
      async (c) => many.get(c)!,
      (x) => x,
    );
    assert.equal(capped.truncated, true);
    assert.equal(capped.items.length, 51);
  });

  it('restarts once on a rejected cursor, and gives up on the second rejection', async () => {
    const three = pages(3);
    let rejections = 1;
    const flaky = async (c: string | undefined) => {
      if (c !== undefined && rejections-- > 0) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
      return three.get(c)!;
    };
    assert.equal((await listAllPages(flaky, (x) => x)).items.length, 4);
    rejections = 2;
    await assert.rejects(
      listAllPages(flaky, (x) => x),
      (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
    );
  });
});
