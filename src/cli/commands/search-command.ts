import type { SearchResult } from '../../bindings/index.js';
import type { CommandHandler } from '../context.js';
import { json } from '../output/blocks.js';
import { terminalSafe } from '../output/terminal-safe.js';

export const searchCommand: CommandHandler = async ({ args, io, signal, host }) => {
  const [query] = args.positionals as [string];
  const server = args.values.server;
  const limit = args.numbers.limit;
  const result = await (await host()).search(
    { query, ...(typeof server === 'string' ? { server } : {}), ...(limit === undefined ? {} : { limit }) },
    { signal },
  );
  io.stdout.write(args.json ? json(result) : `${renderSearch(query, result)}\n`);
  return 0;
};

/** `server/name — description`, then the signature indented: servers' text goes through terminalSafe. */
function renderSearch(query: string, result: SearchResult): string {
  if (result.tools.length === 0) return terminalSafe(`No tool matches "${query}".`);
  const blocks = result.tools.map((hit) => {
    const head = `${hit.server}/${hit.name}${hit.title ? ` (${hit.title})` : ''}${hit.description ? ` — ${hit.description}` : ''}`;
    return `${head}\n  ${hit.signature}`;
  });
  return terminalSafe(blocks.join('\n'));
}
