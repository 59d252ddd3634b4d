/**
 * The full-text index behind `mcp_search`: one minisearch index over every server's visible tools,
 * ranked by minisearch (BM25 with field boosts, prefix and fuzzy matching), never by hand. Kept
 * by the host between searches: a server's part is rebuilt only when its catalog changes (another
 * listing, another filter, other secrets to mask), so a warm search costs one query.
 */
import { nodeCrypto } from '../../../common/lazy-node.js';
import type { Tool } from '@modelcontextprotocol/client';
import type { Options, SearchResult } from 'minisearch';
import type { ToolFilter, ValueRedactor } from '../../../config/index.js';
import { applyToolFilter } from '../tool-filter.js';
import { LeanMiniSearch } from './lean-minisearch.js';
import { processTerm, tokenize } from './search-terms.js';

/** A tool as found: its server's name and the tool as the model may see it (masked). */
export interface IndexedTool {
  readonly server: string;
  readonly tool: Tool;
}

/** What one tool gives the index, each field bounded: a hostile description costs no more than a long one. */
export interface Document {
  readonly id: number;
  readonly name: string;
  readonly title: string;
  readonly args: string;
  readonly description: string;
}

/** Characters of each field that are indexed (the tool itself is returned whole). */
const FIELD_CHARS = { name: 200, title: 200, args: 2_000, description: 2_000 } as const;
/** Argument names indexed per tool (inputSchema.properties). */
const MAX_ARGS = 64;
/** Tools indexed per server: past this many the rest are not searchable (listing is capped elsewhere too). */
export const MAX_INDEXED_TOOLS = 20_000;
/** Distinct terms of a query that are searched: a query of a hundred words costs no more than this. */
export const MAX_QUERY_TERMS = 16;

/** One server's part of the index, and what it was built from. */
interface Part {
  /** The listing as the server gave it (before masking), by identity: the common "nothing changed". */
  listing: readonly Tool[];
  /** The same by content, for a listing that came again unchanged (a saved catalog read anew, a refresh). */
  readonly digest: string;
  readonly redactor: ValueRedactor;
  readonly filter: string;
  readonly ids: readonly number[];
}

/** The index's minisearch options (exported for the check of lean-minisearch.ts against minisearch). */
export const INDEX_OPTIONS: Options<Document> = {
  fields: ['name', 'title', 'args', 'description'],
  storeFields: [],
  tokenize: (text) => tokenize(text),
  processTerm: (term) => processTerm(term),
  searchOptions: {
    // Name > title > argument names > description: a word in a tool's name says most about it.
    boost: { name: 3, title: 2, args: 1.5, description: 1 },
    // Short terms would match half the vocabulary as prefixes, and be fuzzy matches of everything.
    prefix: (term) => term.length >= 3,
    fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
    maxFuzzy: 2,
    combineWith: 'OR',
    tokenize: queryTerms,
  },
};

export class ToolIndex {
  readonly #search = new LeanMiniSearch<Document>(INDEX_OPTIONS);
  readonly #tools = new Map<number, IndexedTool>();
  readonly #parts = new Map<string, Part>();
  #nextId = 1;

  /**
   * Makes `server`'s part the tools of `listing` that the model may see through `filter`, masked by
   * `redactor`, unless it already is. False when it held this very listing already. Throws what the
   * redactor throws (a value nested too deep).
   */
  sync(server: string, listing: readonly Tool[], redactor: ValueRedactor, filter: ToolFilter | undefined): boolean {
    const part = this.#parts.get(server);
    const filterKey = filter === undefined ? '' : JSON.stringify(filter);
    if (part && part.listing === listing && part.redactor === redactor && part.filter === filterKey) return false;
    const digest = digestOf(listing);
    if (part && part.digest === digest && part.redactor === redactor && part.filter === filterKey) {
      part.listing = listing;
      return true;
    }
    const tools = redactor(listing, server).filter(isTool);
    const visible = applyToolFilter(tools, filter).slice(0, MAX_INDEXED_TOOLS);
    this.drop(server);
    const ids: number[] = [];
    const documents: Document[] = [];
    for (const tool of visible) {
      const id = this.#nextId++;
      ids.push(id);
      this.#tools.set(id, { server, tool });
      documents.push(documentOf(id, tool));
    }
    this.#search.addAll(documents);
    this.#parts.set(server, { listing, digest, redactor, filter: filterKey, ids });
    return true;
  }

  /** Forgets `server`'s tools (it left the config). */
  drop(server: string): void {
    const part = this.#parts.get(server);
    if (!part) return;
    this.#search.discardAll(part.ids);
    for (const id of part.ids) this.#tools.delete(id);
    this.#parts.delete(server);
  }

  /** The listing `server`'s part was built from, as the server gave it (for what was learned of its tools). */
  listingOf(server: string): readonly Tool[] | undefined {
    return this.#parts.get(server)?.listing;
  }

  /** The servers that have a part now. */
  servers(): string[] {
    return [...this.#parts.keys()];
  }

  /** The best `limit` tools for `query` among the tools of `among`, best first. */
  search(query: string, among: ReadonlySet<string>, limit: number): IndexedTool[] {
    const found: IndexedTool[] = [];
    // No filter when every indexed server is searched: one lookup less per matching tool.
    const everyPart = [...this.#parts.keys()].every((server) => among.has(server));
    const filter = everyPart ? undefined : (result: SearchResult) => among.has(this.#tools.get(result.id as number)?.server ?? '');
    const results = this.#search.search(query, filter ? { filter } : {});
    for (const result of results) {
      const tool = this.#tools.get(result.id as number);
      if (tool) found.push(tool);
      if (found.length >= limit) break;
    }
    return found;
  }
}

/** The query's terms as minisearch searches them: distinct after processing, at most MAX_QUERY_TERMS. */
function queryTerms(query: string): string[] {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const term of tokenize(query)) {
    const processed = processTerm(term);
    if (processed === null || seen.has(processed)) continue;
    seen.add(processed);
    terms.push(term);
    if (terms.length >= MAX_QUERY_TERMS) break;
  }
  return terms;
}

/** A saved catalog is read back from a file: what is not shaped as a tool is not searched. */
function isTool(tool: unknown): tool is Tool {
  if (typeof tool !== 'object' || tool === null) return false;
  const { name, inputSchema } = tool as { name?: unknown; inputSchema?: unknown };
  return typeof name === 'string' && typeof inputSchema === 'object' && inputSchema !== null;
}

export function documentOf(id: number, tool: Tool): Document {
  const properties = tool.inputSchema?.properties;
  const args = properties && typeof properties === 'object' ? Object.keys(properties).slice(0, MAX_ARGS).join(' ') : '';
  return {
    id,
    name: bounded(tool.name, FIELD_CHARS.name),
    title: bounded(tool.title, FIELD_CHARS.title),
    args: bounded(args, FIELD_CHARS.args),
    description: bounded(tool.description, FIELD_CHARS.description),
  };
}

function bounded(text: unknown, max: number): string {
  return typeof text === 'string' ? text.slice(0, max) : '';
}

/** A listing's content, for "the same tools again". A listing JSON cannot render is never the same. */
function digestOf(listing: readonly Tool[]): string {
  try {
    return nodeCrypto().createHash('sha256').update(JSON.stringify(listing)).digest('hex');
  } catch {
    return `unrenderable ${Math.random()}`;
  }
}
