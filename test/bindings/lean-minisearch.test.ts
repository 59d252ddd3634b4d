// src/bindings/operations/search/lean-minisearch.ts replaces an internal method of minisearch to
// skip bookkeeping the index never reads. Its promise: the ranking is minisearch's to the last bit.
// Checked here against the stock class, same options, same documents: the reference servers' real
// tools and 3,000 synthetic ones from real servers' listings, a server's part discarded and added
// again (minisearch's lazy cleanup of discarded documents runs inside the replaced method), and
// queries as models write them: ids, scores (===) and order of every result, and its query terms.
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import MiniSearch from 'minisearch';
import { LeanMiniSearch } from '../../src/bindings/operations/search/lean-minisearch.js';
import { documentOf, INDEX_OPTIONS, type Document } from '../../src/bindings/operations/search/tool-index.js';
import { catalogServerPath } from '../support/paths.js';
import { MODEL_QUERIES } from '../support/search-queries.js';
import { rawLists, referenceServers } from '../support/reference-lists.js';
import { tempDir } from '../support/temp-dir.js';

const QUERIES = [
  ...MODEL_QUERIES,
  'write file',
  'entity',
  'add numbers',
  'createEntities',
  'read the contents of a directory, recursively',
  'x',
  '',
  'échantillon données 日本語',
  'get-sum sampleLLM longRunningOperation annotated message resource links structured content',
];

describe('the lean minisearch of the search index', function () {
  this.timeout(120_000);
  const catalogs: Tool[][] = [];

  before(async () => {
    const tmp = tempDir();
    try {
      for (const server of Object.values(referenceServers(tmp.dir))) catalogs.push((await rawLists(server)).tools as Tool[]);
      for (const offset of [0, 1500]) {
        const server = { command: process.execPath, args: [catalogServerPath, '--synthetic=1500', `--offset=${offset}`] };
        catalogs.push((await rawLists(server)).tools as Tool[]);
      }
    } finally {
      tmp.cleanup();
    }
    assert.ok(catalogs.reduce((n, tools) => n + tools.length, 0) > 3000);
  });

  function both(): [MiniSearch<Document>, MiniSearch<Document>, number[][]] {
    const stock = new MiniSearch<Document>(INDEX_OPTIONS);
    const lean = new LeanMiniSearch<Document>(INDEX_OPTIONS);
    let id = 1;
    const parts = catalogs.map((tools) => {
      const documents = tools.map((tool) => documentOf(id++, tool));
      stock.addAll(documents);
      lean.addAll(documents);
      return documents.map((d) => d.id);
    });
    return [stock, lean, parts];
  }

  function assertSame(stock: MiniSearch<Document>, lean: MiniSearch<Document>, label: string): number {
    let compared = 0;
    for (const query of QUERIES) {
      const expected = stock.search(query);
      const actual = lean.search(query);
      assert.equal(actual.length, expected.length, `${label}: "${query}" finds as many`);
      for (let i = 0; i < expected.length; i++) {
        assert.equal(actual[i]!.id, expected[i]!.id, `${label}: "${query}" #${i}`);
        assert.equal(actual[i]!.score, expected[i]!.score, `${label}: "${query}" #${i} score`);
        assert.deepEqual(actual[i]!.queryTerms, expected[i]!.queryTerms, `${label}: "${query}" #${i} query terms`);
      }
      compared += expected.length;
    }
    return compared;
  }

  it('ranks as minisearch does: the same ids, scores and order for every query', () => {
    const [stock, lean] = both();
    const compared = assertSame(stock, lean, 'built');
    assert.ok(compared > 5_000, `the queries match many documents (${compared})`);
  });

  it('and after a part is discarded (cleaned up during the searches) and added again', () => {
    const [stock, lean, parts] = both();
    for (const index of [stock, lean]) index.discardAll(parts[4]!);
    assertSame(stock, lean, 'discarded');
    assertSame(stock, lean, 'discarded, searched again');
    const again = catalogs[4]!.map((tool, i) => documentOf(100_000 + i, tool));
    for (const index of [stock, lean]) index.addAll(again);
    assertSame(stock, lean, 'added again');
  });

  it("a search with a document boost is minisearch's own", () => {
    const [stock, lean] = both();
    const boostDocument = (id: number) => (id % 3 === 0 ? 0 : 1 + (id % 5));
    for (const query of QUERIES.slice(0, 5)) {
      const expected = stock.search(query, { boostDocument });
      const actual = lean.search(query, { boostDocument });
      assert.deepEqual(actual, expected);
    }
  });
});
