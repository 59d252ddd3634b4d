// `npm run demo`: the CLI against examples/mcp.json (real reference servers from npm).
// examples/mcp.json starts each server as `node node_modules/…`, relative to the repo root.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// The launcher that `berry-mcp` runs (bin/berry-mcp; npm link puts it on the PATH).
const bin = join(root, 'bin/berry-mcp');
mkdirSync(join(homedir(), '.cache'), { recursive: true });

const steps = [
  ['list'],
  ['call', 'everything', 'echo', '{"message":"hello from berry-mcp"}'],
  ['call', 'everything', 'get-sum', 'a=2', 'b=40'],
  ['call', 'files', 'list_directory', '{"path":"."}'],
  ['call', 'memory', 'create_entities', '{"entities":[{"name":"berry-mcp","entityType":"project","observations":["runs MCP from scripts"]}]}'],
  ['call', 'memory', 'search_nodes', '{"query":"berry"}'],
  ['describe', 'everything', 'get-sum'],
  ['read', 'everything', 'demo://resource/dynamic/text/1'],
  ['prompt', 'everything', 'args-prompt', 'city=Paris'],
  ['run', 'examples/tour.js'],
];

let failed = 0;
for (const step of steps) {
  process.stdout.write(`\n$ berry-mcp ${step.map((a) => (/[\s{"]/.test(a) ? `'${a}'` : a)).join(' ')} --config examples/mcp.json\n`);
  const result = spawnSync(bin, [...step, '--config', 'examples/mcp.json'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    process.stdout.write(`(exit status ${result.status})\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
