// Mastra's code mode (@mastra/core createCodeMode, issue 35's third peer) over MCP tools from
// @mastra/mcp's MCPClient: server-everything and fault-server. Each program runs in Mastra's
// LocalSandbox through its default transport: a `node --experimental-strip-types` child process
// per program, each external_* call a JSON-RPC frame over its stdio to the host, which runs the
// MCP tool. Measures, in alternating rounds: a fresh program (`return 1`); a sandboxed echo call
// (a program making `calls` calls in a loop, timed inside with Date.now()) against a raw SDK
// client on its own server process and against the MCP tool's execute on the host (unsandboxed);
// then fan-out: Promise.all of `fanOut` fault-server sleep(1000) calls against one such call, each
// timed inside its program.
// Input: {node, everythingPath, faultServerPath, dir, calls, rounds, fanOut}.
// Output: {node, isolation, start, raw, direct, sandbox, one, fan}, sides as {perRound, samples} in ms
// (sandbox: per call).
import { dirname } from 'node:path';
import { createCodeMode, noopObserve } from '@mastra/core/tools';
import { LocalSandbox } from '@mastra/core/workspace';
import { MCPClient } from '@mastra/mcp';
import { alternate, input, output, rawStdio, timeEach } from './lib.mjs';

const { node, everythingPath, faultServerPath, dir, calls, rounds, fanOut } = input();
const mcp = new MCPClient({
  id: 'bench',
  servers: {
    everything: { command: node, args: [everythingPath] },
    fault: { command: node, args: [faultServerPath] },
  },
});
// What an agent without tracing passes a tool (createCodeMode's tool needs `observe`).
const context = { observe: noopObserve };
// LocalSandbox passes only PATH: put this Node first, the one Mastra needs (type stripping).
// isolation 'none' (its default): bwrap, its Linux option, is not installed on this machine.
const isolation = 'none';
const sandbox = new LocalSandbox({ workingDirectory: dir, isolation, env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}` } });
const raw = await rawStdio(node, [everythingPath]);
try {
  const tools = await mcp.listTools();
  const echo = tools.everything_echo;
  const sleep = tools.fault_sleep;
  if (!echo || !sleep) throw new Error(`MCPClient tools lack everything_echo or fault_sleep: ${Object.keys(tools).join(', ')}`);
  const { tool } = createCodeMode({ tools: { everything_echo: echo, fault_sleep: sleep }, sandbox, timeout: 120_000 });

  /** Runs a program and returns its result; a failed one throws with Mastra's error message. */
  async function program(code) {
    const r = await tool.execute({ code }, context);
    if (!r?.success) throw new Error(`program failed: ${JSON.stringify(r?.error ?? r)}`);
    return r.result;
  }

  const start = await alternate({ rounds }, { start: () => timeEach(5, () => program('return 1')) });
  const loop = `const t0 = Date.now();
for (let i = 0; i < ${calls}; i++) await external_everything_echo({ message: 'bench' });
return Date.now() - t0;`;
  const args = { message: 'bench' };
  const calls_ = await alternate(
    { rounds },
    {
      raw: () => timeEach(calls, () => raw.callTool({ name: 'echo', arguments: args })),
      direct: () => timeEach(calls, () => echo.execute(args, context)),
      sandbox: async () => (await program(loop)) / calls,
    },
  );
  const call = 'external_fault_sleep({ ms: 1000 })';
  // Timed inside the program, as the loop above: each program's own process start (≈ 0.2 s, and
  // noisy by ±0.1 s here) would otherwise hide what the fan-out itself costs.
  const timed = (body) => program(`const t0 = Date.now();\n${body};\nreturn Date.now() - t0;`);
  const fan = await alternate(
    { rounds: 3, warmupRounds: 1 },
    {
      one: () => timed(`await ${call}`),
      fan: () => timed(`await Promise.all(Array.from({ length: ${fanOut} }, () => ${call}))`),
    },
  );
  output({ node: process.version, isolation, start: start.start, ...calls_, ...fan });
} finally {
  await Promise.all([mcp.disconnect(), raw.close()]);
}
