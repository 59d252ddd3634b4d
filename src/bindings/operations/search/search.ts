/**
 * `mcp_search`: the tools that best match a query, across every configured server (or one), best
 * first, each with its call signature as `mcp_describe({ server })` gives it. Answered from the
 * catalogs `mcp_list` would use (live, else saved, else the server started), through an index the
 * host keeps warm between searches. Tools a filter or MCP Apps hides are never indexed; servers
 * that fail are left out (unless the search names one: then its error is the answer).
 */
import type { OperationOptions, SearchHit, SearchResult } from '../../contract.js';
import { summarize } from '../../catalog/summarize.js';
import { toolSignature } from '../../catalog/describe-format.js';
import type { Observation, ObservedTools } from '../../catalog/observed-types/observation.js';
import { gateOf, type ServerTextGate } from '../../server-text/gate.js';
import { validateSearchRequest } from '../arguments/validate-request.js';
import type { OperationContext } from '../context.js';
import { indexServer, type SearchedServer, type SearchState } from './catalog-source.js';
import type { IndexedTool } from './tool-index.js';

/** A title as returned: one line, this long at most (a description is cut by summarize). */
const MAX_TITLE_CHARS = 160;

/** Each host's index, made by its first search and kept while the host lives (a host lends one context for its life). */
const states = new WeakMap<OperationContext, SearchState>();

export function search(context: OperationContext, request: unknown, options: OperationOptions): Promise<SearchResult> {
  const { query, server, limit } = validateSearchRequest(request);
  const { signal } = options;
  return context.operation(signal, async () => {
    const prepared = await context.prepare(signal);
    // An unknown, disabled or misconfigured server named by the search is its error.
    if (server !== undefined) context.resolve(prepared, server);
    const state = await stateOf(context);
    const configured = new Set(prepared.loaded.servers.map((slot) => slot.name));
    for (const name of state.index.servers()) if (!configured.has(name)) state.index.drop(name);
    const searched: SearchedServer[] = [];
    for (const slot of prepared.loaded.servers) {
      if (slot.status === 'ok' && (server === undefined || slot.name === server)) searched.push(slot);
    }
    const gate = gateOf(prepared.loaded.servers);
    const answered = await Promise.all(searched.map((s) => indexServer(context, prepared, s, state, gate, signal, server !== undefined)));
    const among = new Set(searched.filter((_, i) => answered[i]).map((s) => s.name));
    const found = state.index.search(query, among, limit);
    const learned = await learnedTypes(context, options.client, searched, found, state, gate, signal);
    return { tools: await Promise.all(found.map((hit) => hitOf(hit, learned.get(hit.server)?.get(hit.tool.name)))) };
  });
}

// minisearch is loaded by the first search: a host that never searches (a run of `text(1)`) does not pay for it.
async function stateOf(context: OperationContext): Promise<SearchState> {
  let state = states.get(context);
  if (state === undefined) {
    const { ToolIndex } = await import('./tool-index.js');
    state = states.get(context) ?? { index: new ToolIndex(), saved: new Map() };
    states.set(context, state);
  }
  return state;
}

/**
 * What was learned of the found tools' results (as describe shows it: `returns (observed over N
 * calls) …`), per server that has a hit; only what `client`'s own calls taught, as in describe.
 */
async function learnedTypes(
  context: OperationContext,
  client: object | undefined,
  searched: readonly SearchedServer[],
  found: readonly IndexedTool[],
  state: SearchState,
  gate: ServerTextGate,
  signal: AbortSignal | undefined,
): Promise<Map<string, ObservedTools>> {
  const observed = context.observed.for(client);
  const learned = new Map<string, ObservedTools>();
  const servers = new Set(found.map((hit) => hit.server));
  await Promise.all(
    searched
      .filter((server) => servers.has(server.name))
      .map(async ({ name, config }) => {
        const listing = state.index.listingOf(name);
        if (listing) learned.set(name, await observed.view(config.fingerprint, name, listing, gate, signal));
      }),
  );
  return learned;
}

async function hitOf({ server, tool }: IndexedTool, learned: Observation | undefined): Promise<SearchHit> {
  const title = oneLine(textOf(tool.title) ?? '').slice(0, MAX_TITLE_CHARS);
  return {
    server,
    name: tool.name,
    ...(title === '' ? {} : { title }),
    description: oneLine(summarize(textOf(tool.description) ?? textOf(tool.title))),
    signature: await toolSignature(tool, learned),
  };
}

/** Control characters and line breaks of a server's text become spaces: a hit is one line per field. */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
