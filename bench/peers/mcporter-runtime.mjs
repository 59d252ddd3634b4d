// mcporter's runtime: warm `runtime.callTool` on server-everything `echo`, against a raw SDK
// client on its own server process, in alternating rounds. Input: {node, everythingPath, dir,
// calls, rounds}. Output: {mcporter, raw} as {perRound, samples} in ms.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from 'mcporter';
import { alternate, input, output, rawStdio, timeEach } from './lib.mjs';

const { node, everythingPath, dir, calls, rounds } = input();
const configPath = join(dir, 'mcporter.json');
// No imports: only this file's servers (mcporter would otherwise merge editor configs too).
writeFileSync(configPath, JSON.stringify({ mcpServers: { everything: { command: node, args: [everythingPath] } }, imports: [] }));
const runtime = await createRuntime({ configPath, rootDir: dir });
const raw = await rawStdio(node, [everythingPath]);
const args = { message: 'bench' };
try {
  await runtime.callTool('everything', 'echo', { args });
  const r = await alternate({ rounds }, {
    raw: () => timeEach(calls, () => raw.callTool({ name: 'echo', arguments: args })),
    mcporter: () => timeEach(calls, () => runtime.callTool('everything', 'echo', { args })),
  });
  output({ node: process.version, ...r });
} finally {
  await Promise.all([runtime.close(), raw.close()]);
}
