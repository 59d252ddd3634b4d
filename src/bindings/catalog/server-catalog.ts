/**
 * One connection's live catalog: tools, prompts, resources and resource templates, each listed to
 * the end on first use and cached until the server says the list changed.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/client';
import { cacheScopeOf, listAllPages, ttlOf, type Listing, type Page } from './list-pages.js';
import { SharedWork } from '../../common/shared-work.js';
import { withoutInvalidHeaders } from './header-annotations.js';

export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

interface Item {
  readonly tools: Tool;
  readonly prompts: Prompt;
  readonly resources: Resource;
  readonly resourceTemplates: ResourceTemplate;
}

/** The capability a server must declare for each list. */
const CAPABILITY: Record<ListKind, 'tools' | 'prompts' | 'resources'> = {
  tools: 'tools',
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'resources',
};

/** What the catalog needs from its connection: the client, and a request wrapper that maps errors. */
export interface CatalogHost {
  readonly client: Client;
  /** Runs one request with the entry's timeout; failures become typed errors. */
  send<T>(operation: string, run: (options: { timeout: number; signal?: AbortSignal }) => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly config: { readonly name: string };
  /** True on a 2026-07-28 Streamable HTTP connection: tool parameters may travel as headers. */
  readonly mirrorsHeaders: boolean;
  /** Says why a listed item was left out. */
  warn(message: string): void;
}

interface Entry<T> {
  readonly work: SharedWork<Listing<T>>;
  /** When the listing settled (ms since epoch), for "may be stale" checks. */
  settledAt: number | undefined;
  /** The server's `ttlMs` for it: past it, the next use lists again (else: until list_changed). */
  ttlMs: number | undefined;
}

export class ServerCatalog {
  readonly #host: CatalogHost;
  readonly #entries = new Map<ListKind, Entry<unknown>>();
  /** The settled tool list by name: the call hot path checks a name without awaiting. */
  #toolIndex: Map<string, Tool> | undefined;

  constructor(host: CatalogHost) {
    this.#host = host;
  }

  /** True when the server declared the capability the list needs (tools are assumed). */
  supports(kind: ListKind): boolean {
    const capabilities = this.#host.client.getServerCapabilities();
    if (kind === 'tools') return true;
    return capabilities?.[CAPABILITY[kind]] !== undefined;
  }

  /** Forgets a list: the next use fetches it again (list_changed, or a suspected stale cache). */
  invalidate(kind: ListKind): void {
    this.#entries.delete(kind);
    if (kind === 'tools') this.#toolIndex = undefined;
    if (kind === 'resources') this.#entries.delete('resourceTemplates');
  }

  /** The tool named `name` from a settled listing; undefined when not listed yet or absent. */
  toolNamed(name: string): Tool | undefined {
    return this.#toolIndex?.get(name);
  }

  /** How old the cached list is, or undefined when none is cached yet. */
  ageMs(kind: ListKind): number | undefined {
    const settled = this.#entries.get(kind)?.settledAt;
    return settled === undefined ? undefined : Date.now() - settled;
  }

  /** `server` names the entry asking, for its own cancellation (twins share the listing). */
  list<K extends ListKind>(kind: K, signal?: AbortSignal, server = this.#host.config.name): Promise<Listing<Item[K]>> {
    let entry = this.#entries.get(kind) as Entry<Item[K]> | undefined;
    const expired = entry?.settledAt !== undefined && entry.ttlMs !== undefined && Date.now() - entry.settledAt > entry.ttlMs;
    if (!entry || entry.work.abandoned || expired) {
      // Shared work runs under its own signal (the entry's timeout bounds each page); each caller's
      // abort ends only its own wait, and the listing is abandoned only when every waiter has gone.
      const work = new SharedWork((own) => this.#supportsOrEmpty(kind, own));
      const created: Entry<Item[K]> = { work, settledAt: undefined, ttlMs: undefined };
      entry = created;
      this.#entries.set(kind, created as Entry<unknown>);
      work.promise.then(
        (listing) => {
          created.settledAt = Date.now();
          created.ttlMs = listing.ttlMs;
          if (kind === 'tools' && this.#entries.get(kind) === (created as Entry<unknown>)) {
            this.#toolIndex = new Map((listing.items as Tool[]).map((tool) => [tool.name, tool]));
          }
        },
        () => {
          if (this.#entries.get(kind) === (created as Entry<unknown>)) this.#entries.delete(kind);
        },
      );
    }
    return entry.work.join(signal, `Listing ${kind} of server "${server}"`);
  }

  async #supportsOrEmpty<K extends ListKind>(kind: K, signal: AbortSignal): Promise<Listing<Item[K]>> {
    if (!this.supports(kind)) return { items: [], truncated: false };
    const listing = await listAllPages(
      (cursor) => this.#page(kind, cursor, signal) as Promise<Page<Item[K]>>,
      (item) => ('uriTemplate' in item ? item.uriTemplate : 'uri' in item ? item.uri : item.name) as string,
    );
    if (kind !== 'tools' || !this.#host.mirrorsHeaders) return listing;
    const { tools, warnings } = withoutInvalidHeaders(listing.items as Tool[]);
    for (const warning of warnings) this.#host.warn(warning);
    return { ...listing, items: tools as Item[K][], warnings };
  }

  // Pages are asked for one by one (list-pages.ts walks them): the SDK's list helpers would walk
  // them themselves and keep a cache of their own.
  async #page(kind: ListKind, cursor: string | undefined, signal: AbortSignal): Promise<Page<unknown>> {
    const params = cursor === undefined ? {} : { cursor };
    const client = this.#host.client;
    const { method, field } = LIST[kind];
    const r = (await this.#host.send(method, (o) => client.request({ method, params }, o), signal)) as unknown as Record<string, unknown> & {
      nextCursor?: string;
    };
    const items = Array.isArray(r[field]) ? (r[field] as unknown[]) : [];
    return { items, nextCursor: r.nextCursor, ttlMs: ttlOf(r as { _meta?: Record<string, unknown> }), cacheScope: cacheScopeOf(r) };
  }
}

const LIST = {
  tools: { method: 'tools/list', field: 'tools' },
  prompts: { method: 'prompts/list', field: 'prompts' },
  resources: { method: 'resources/list', field: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', field: 'resourceTemplates' },
} as const;
