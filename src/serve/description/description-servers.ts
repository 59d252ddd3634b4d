/**
 * The servers part of the `run` description, fitted to a character budget: every server keeps its
 * name and tool count, and tool names share what room is left, one name per server per round so
 * that no server takes it all. A name is shown whole or not at all; a cut list says how many it
 * left out. Only when the servers' names alone do not fit are the last servers counted instead.
 */
import type { ServerEntry } from '../server-entries.js';

/** The most a status (why a server has no tools) may take: it is ours, but carries error codes. */
const STATUS_MAX = 80;

/** The server lines, joined by newlines, at most `budget` characters in all. */
export function fitServers(servers: readonly ServerEntry[], budget: number): string {
  if (servers.length === 0) return '(none configured: add servers to mcp.json)';
  const heads = servers.map(head);
  const shown = headsThatFit(heads, budget);
  if (shown < servers.length) {
    const rest = servers.length - shown;
    return [...heads.slice(0, shown), `- … ${rest} more server${rest === 1 ? '' : 's'} not shown: tools.mcp_list({}) names them`].join('\n');
  }
  let room = budget - joinedLength(heads);
  // counts[i]: how many of server i's tool names are shown; open[i]: it may still take one more.
  const counts = servers.map(() => 0);
  const open = servers.map((s) => 'tools' in s && s.tools.length > 0);
  let progress = true;
  while (progress) {
    progress = false;
    servers.forEach((server, i) => {
      if (!open[i] || !('tools' in server)) return;
      const cost = tail(server.tools, counts[i]! + 1).length - tail(server.tools, counts[i]!).length;
      if (cost > room) {
        open[i] = false;
        return;
      }
      room -= cost;
      counts[i]!++;
      if (counts[i] === server.tools.length) open[i] = false;
      progress = true;
    });
  }
  return servers.map((server, i) => heads[i]! + ('tools' in server ? tail(server.tools, counts[i]!) : '')).join('\n');
}

/** `- docs (12)` (its tool count) or `- docs: unavailable: MCP_CONNECT_FAILED`. */
function head(server: ServerEntry): string {
  if ('tools' in server) return `- ${server.name} (${server.tools.length})`;
  const status = server.status.length <= STATUS_MAX ? server.status : `${server.status.slice(0, STATUS_MAX - 1)}…`;
  return `- ${server.name}: ${status}`;
}

/** `: a, b, … (10 not shown)` for the first `count` names; empty when none is shown. */
function tail(names: readonly string[], count: number): string {
  if (count === 0) return '';
  const rest = names.length - count;
  return `: ${names.slice(0, count).join(', ')}${rest > 0 ? `, … (${rest} not shown)` : ''}`;
}

/** How many heads fit, leaving room for the line that counts the rest when some do not. */
function headsThatFit(heads: readonly string[], budget: number): number {
  if (joinedLength(heads) <= budget) return heads.length;
  const restLine = `- … ${heads.length} more servers not shown: tools.mcp_list({}) names them`.length + 1;
  let used = 0;
  let count = 0;
  for (const line of heads) {
    if (used + line.length + 1 + restLine > budget) break;
    used += line.length + 1;
    count++;
  }
  return count;
}

function joinedLength(lines: readonly string[]): number {
  return lines.reduce((sum, line) => sum + line.length, 0) + Math.max(0, lines.length - 1);
}
