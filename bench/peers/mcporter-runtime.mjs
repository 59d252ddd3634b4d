// mcporter's runtime: warm `runtime.callTool` on server-everything `echo`, against a raw SDK
// client and berry-mcp's `host.call`, each on its own server process, in alternating rounds in
// this one process (so on the peers' Node, the same for all three). Input: {node, everythingPath,
// dir, calls, rounds}. Output: {mcporter, raw, berry} as {perRound, samples} in ms.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from 'mcporter';
// The MCP host, which is what host.call runs (the sandbox needs isolated-vm built for the project's Node).
import { createMcpHost } from '../../dist/src/bindings/index.js';
import { settled } from '../../dist/bench/fixtures.js';
import { alternate, input, output, rawStdio, timeEach } from './lib.mjs';

const { node, everythingPath, dir, calls, rounds } = input();
const servers = { everything: { command: node, args: [everythingPath] } };
const configPath = join(dir, 'mcporter.json');
// No imports: only this file's servers (mcporter would otherwise merge editor configs too).
writeFileSync(configPath, JSON.stringify({ mcpServers: servers, imports: [] }));
const berryConfig = join(dir, 'berry-mcp.json');
writeFileSync(berryConfig, JSON.stringify({ mcpServers: servers }));
const runtime = await createRuntime({ configPath, rootDir: dir });
const host = createMcpHost({ cwd: dir, configPath: berryConfig });
const raw = await rawStdio(node, [everythingPath]);
const args = { message: 'bench' };
const call = { server: 'everything', tool: 'echo', arguments: args };
try {
  await settled(berryConfig);
  await Promise.all([runtime.callTool('everything', 'echo', { args }), host.call(call)]);
  const r = await alternate(
    { rounds, warmupRounds: 1 },
    {
      raw: () => timeEach(calls, () => raw.callTool({ name: 'echo', arguments: args })),
      mcporter: () => timeEach(calls, () => runtime.callTool('everything', 'echo', { args })),
      berry: () => timeEach(calls, () => host.call(call)),
    },
  );
  output({ node: process.version, ...r });
} finally {
  await Promise.all([runtime.close(), raw.close(), host.close()]);
}
