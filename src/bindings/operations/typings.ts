import { generateTypings, type TypingsServerInput } from '../typings/index.js';
import type { OperationContext } from './context.js';
import { catalogOf } from './list.js';
import { applyToolFilter } from './tool-filter.js';
import { gateOf } from '../server-text/gate.js';

export interface TypingsRequest {
  /** One server's typings; every configured server's when absent. */
  readonly server?: string;
  /** Whose learned result types to include (ObservedTypes.for); the host's own when absent. */
  readonly client?: object;
}

/** A .d.ts typing `tools.mcp_call`/`mcp_describe` per configured server (or one) and tool; broken servers become warnings. */
export function typings(context: OperationContext, request: TypingsRequest, options: { readonly signal?: AbortSignal }): Promise<string> {
  const { server } = request;
  const { signal } = options;
  return context.operation(signal, async () => {
    const prepared = await context.prepare(signal);
    if (server !== undefined) context.resolve(prepared, server);
    const inputs = await Promise.all(
      prepared.loaded.servers
        .filter((slot) => server === undefined || slot.name === server)
        .map(async (slot): Promise<TypingsServerInput> => {
          const catalog = await catalogOf(context, prepared, slot, signal);
          if (catalog.status === 'connected') {
            // Prompts type mcp_prompt; a server whose prompt list fails is still typed for its tools.
            const prompts =
              slot.status === 'ok'
                ? await context
                    .use(prepared, slot.config, (c) => c.catalog.list('prompts', signal, slot.name), signal)
                    .then(
                      (listing) => listing.items,
                      () => [],
                    )
                : [];
            const observed =
              slot.status === 'ok'
                ? await context.observed.for(request.client).view(slot.config.fingerprint, slot.name, catalog.tools, gateOf(prepared.loaded.servers), signal)
                : undefined;
            return { server: slot.name, tools: applyToolFilter(catalog.tools, catalog.filter), prompts, observed };
          }
          if (catalog.status === 'disabled') return { server: slot.name, error: 'disabled ("enabled": false)' };
          if (catalog.status === 'auth_required') return { server: slot.name, error: catalog.error.message };
          return { server: slot.name, error: `${catalog.error.code}: ${catalog.error.message}` };
        }),
    );
    return generateTypings(inputs);
  });
}
