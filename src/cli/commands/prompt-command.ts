/** `berry-mcp prompt SERVER NAME [JSON | key=value ...]`: a prompt's messages, filled in. */
import type { Writable } from 'node:stream';
import type { Host } from '../../host.js';
import { UsageError } from '../usage.js';

export async function promptCommand(
  host: Host,
  positionals: readonly string[],
  options: { readonly json: boolean },
  io: { readonly stdout: Writable },
  signal: AbortSignal,
): Promise<number> {
  const [server, name, ...rest] = positionals;
  const result = await host.prompt({ server: server!, name: name!, arguments: promptArguments(rest) }, { signal });
  if (options.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  if (result.description) lines.push(`# ${result.description}`, '');
  for (const message of result.messages) {
    const content = message.content;
    const body =
      content.type === 'text'
        ? content.text
        : content.type === 'resource' && 'text' in content.resource
          ? `[resource ${content.resource.uri}]\n${content.resource.text}`
          : `[${content.type}${'mimeType' in content && content.mimeType ? ` ${content.mimeType}` : ''}${'uri' in content ? ` ${content.uri}` : ''}]`;
    lines.push(`${message.role}:`, body, '');
  }
  io.stdout.write(`${lines.join('\n').replace(/\n+$/, '')}\n`);
  return 0;
}

/** One JSON object, or `key=value` pairs (prompt arguments are strings). */
export function promptArguments(words: readonly string[]): Record<string, string> {
  if (words.length === 0) return {};
  if (words.length === 1 && words[0]!.trimStart().startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(words[0]!);
    } catch (error) {
      throw new UsageError(`prompt arguments must be JSON such as '{"city":"Paris"}' or key=value pairs: ${(error as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError(`prompt arguments must be a JSON object such as '{"city":"Paris"}'`);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  }
  const args: Record<string, string> = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new UsageError(`prompt argument "${word}" is not key=value (or give one JSON object)`);
    args[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return args;
}
