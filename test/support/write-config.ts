import fs from 'node:fs';
import path from 'node:path';

/** Write dir/mcp.json as {"mcpServers": servers} (creating dir) and return its path. */
export function writeConfig(dir: string, servers: Record<string, unknown>): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
  return file;
}
