// @utcp/code-mode with @utcp/mcp: server-everything and fault-server registered as one MCP manual.
// Measures, in alternating rounds: a fresh sandbox (empty chain); a sandboxed echo call (a chain
// making `calls` calls in a loop, timed inside with Date.now()) against a raw SDK client on its
// own server process and against the unsandboxed client.callTool; then fan-out: a chain doing
// Promise.all of `fanOut` fault-server sleep(1000) calls against a chain making one.
// Input: {node, everythingPath, faultServerPath, calls, rounds, fanOut}.
// Output: {start, raw, direct, sandbox, one, fan} as {perRound, samples} in ms (sandbox: per call).
import { CodeModeUtcpClient } from '@utcp/code-mode';
import '@utcp/mcp';
import { alternate, input, output, rawStdio, timeEach, timeOnce } from './lib.mjs';

const { node, everythingPath, faultServerPath, calls, rounds, fanOut } = input();
const client = await CodeModeUtcpClient.create();
const registered = await client.registerManual({
  name: 'ev',
  call_template_type: 'mcp',
  config: {
    mcpServers: {
      everything: { transport: 'stdio', command: node, args: [everythingPath] },
      fault: { transport: 'stdio', command: node, args: [faultServerPath] },
    },
  },
});
if (!registered.success) throw new Error(`registerManual failed: ${JSON.stringify(registered.errors)}`);
const raw = await rawStdio(node, [everythingPath]);

/** Runs a chain and returns its result; a failed chain comes back as result null + an [ERROR] log. */
async function chain(code) {
  const { result, logs } = await client.callToolChain(code, 120_000);
  const error = logs.find((line) => line.startsWith('[ERROR]'));
  if (error) throw new Error(error);
  return result;
}

try {
  const start = await alternate({ rounds }, { start: () => timeEach(20, () => chain('return 1')) });
  const loop = `const t0 = Date.now();
for (let i = 0; i < ${calls}; i++) ev.everything_echo({ message: 'bench' });
return Date.now() - t0;`;
  const calls_ = await alternate(
    { rounds },
    {
      raw: () => timeEach(calls, () => raw.callTool({ name: 'echo', arguments: { message: 'bench' } })),
      direct: () => timeEach(calls, () => client.callTool('ev.everything.echo', { message: 'bench' })),
      sandbox: async () => (await chain(loop)) / calls,
    },
  );
  const sleep = 'ev.fault_sleep({ ms: 1000 })';
  // Its tool functions block the isolate (applySyncPromise): fan-out runs in series, so one round.
  const fan = await alternate(
    { rounds: 1, warmupRounds: 0 },
    {
      one: () => timeOnce(() => chain(`return ${sleep};`)),
      fan: () => timeOnce(() => chain(`return await Promise.all(Array.from({ length: ${fanOut} }, () => ${sleep}));`)),
    },
  );
  output({ node: process.version, start: start.start, ...calls_, ...fan });
} finally {
  await Promise.all([client.close(), raw.close()]);
}
// Something in the client keeps the event loop alive for ~30 s after close(): do not wait for it.
process.exit(0);
