/**
 * Sections 2 and 3: warm calls on one already-connected stdio server.
 *
 * 2. server-everything `echo`, 1,000 sequential calls per round, in alternating rounds: a raw SDK
 *    `Client.callTool` (on its own server process), `host.call`, and a script doing
 *    `await tools.mcp_call(...)` in a loop (host.call and the sandbox share one server process).
 *    The script times its own loop with Date.now(), so isolate start-up is left out. A fourth
 *    side is the bridge's floor: the same loop calling a host function that answers at once with
 *    an echo-like result (runScript directly, no MCP). Two more sides split host.call's overhead
 *    (ablation): the host's pooled ServerConnection.callTool called directly (no config reread, no
 *    pool), and the SDK's own Client.callTool on that same connection (the host's transport and
 *    server process, none of its call wrapper).
 * 3. Fan-out: 16 calls of fault-server `sleep {ms: 1000}` under Promise.all in one script,
 *    against a script making one such call: each run timed whole, and timed by the script itself.
 */
import { createHost } from '../src/index.js';
import { runScript } from '../src/runtime/index.js';
import { ECHO, everythingEntry, everythingPath, faultEntry, NODE, rawEcho, rawStdio, settled, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, median, pairedRatios, timeEach } from './stats.js';

const CALLS = 1000;
const ROUNDS = 8;
/** What the bridge floor's host function returns: the shape and size of server-everything's echo result. */
const ECHO_RESULT = { content: [{ type: 'text', text: 'Echo: bench' }] };

export async function warmCalls(): Promise<Row[]> {
  const section = '2 warm call';
  const { dir, remove } = tempDir('calls');
  const configPath = writeConfig(dir, { everything: everythingEntry() });
  const host = createHost({ cwd: dir, configPath });
  const raw = await rawStdio(NODE, [everythingPath]);
  const loop = (fn: string): string => `const t0 = Date.now();
for (let i = 0; i < ${CALLS}; i++) await tools.${fn}(${JSON.stringify(ECHO)});
return Date.now() - t0;`;
  const perCall = async (record: Promise<{ ok: boolean; result?: unknown; error?: unknown }>): Promise<number> => {
    const r = await record;
    if (!r.ok || typeof r.result !== 'number') throw new Error(`script failed: ${JSON.stringify(r.error)}`);
    return r.result / CALLS;
  };
  try {
    await settled(configPath);
    await host.call(ECHO);
    // Kept past withServer only for the ablation sides: nothing else uses it, and it idles for 5 min.
    const connection = await host.withServer(ECHO.server, async (c) => c);
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        raw: () => timeEach(CALLS, () => rawEcho(raw)),
        hostCall: () => timeEach(CALLS, () => host.call(ECHO)),
        sandbox: () => perCall(host.run(loop('mcp_call'))),
        connectionCall: () => timeEach(CALLS, () => connection.callTool(ECHO.tool, ECHO.arguments)),
        sdkOnHostConnection: () => timeEach(CALLS, () => connection.client.callTool({ name: ECHO.tool, arguments: ECHO.arguments })),
        bridge: () => perCall(runScript(loop('echo_like'), { functions: { echo_like: async () => ECHO_RESULT } })),
      },
    );
    return [
      row(section, 'raw SDK Client.callTool(echo), per call', 'ms', r.raw.samples),
      row(section, 'host.call(echo), per call', 'ms', r.hostCall.samples),
      row(section, 'script: await tools.mcp_call(echo), per call', 'ms', r.sandbox.perRound, {
        note: `loop of ${CALLS} calls timed inside the script, per round`,
      }),
      row(section, '(floor) script → host function → script, no MCP, per call', 'ms', r.bridge.perRound, {
        note: 'runScript, a host function answering at once with an echo-like result',
      }),
      row(section, 'host.call / raw (median call; config reread incl.)', 'x', pairedRatios(r.hostCall.perRoundMedian, r.raw.perRoundMedian), {
        target: { max: 1.1, label: '≤ 1.10×' },
        note: `per round: median call of ${CALLS} over median call of ${CALLS}`,
      }),
      row(section, 'host.call / raw (mean call)', 'x', pairedRatios(r.hostCall.perRound, r.raw.perRound)),
      row(section, '(ablation) ServerConnection.callTool / raw (median)', 'x', pairedRatios(r.connectionCall.perRoundMedian, r.raw.perRoundMedian), {
        note: 'the host minus config reread and pool',
      }),
      row(section, '(ablation) SDK callTool on the host connection / raw', 'x', pairedRatios(r.sdkOnHostConnection.perRoundMedian, r.raw.perRoundMedian), {
        note: "the host's transport and server process, without its call wrapper",
      }),
      row(section, 'sandboxed mcp_call / raw (mean call)', 'x', pairedRatios(r.sandbox.perRound, r.raw.perRound), {
        target: { max: 1.8, label: '≤ 1.8×' },
        note: `per round: mean call of ${CALLS} in the loop over mean raw call of ${CALLS}`,
      }),
    ];
  } finally {
    await Promise.all([host.close(), raw.close()]);
    remove();
  }
}

const FAN_OUT = 16;
const SLEEP = { server: 'fault', tool: 'sleep', arguments: { ms: 1000 } } as const;

export async function fanOut(): Promise<Row[]> {
  const section = '3 fan-out';
  const { dir, remove } = tempDir('fanout');
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, { fault: faultEntry() }) });
  const call = `tools.mcp_call(${JSON.stringify(SLEEP)})`;
  // Each script also times its own calls (as section 8's code-mode peers do): one value per run,
  // the warm-up round's first; without the run's start and its check, which differ by script.
  const inScript = { one: [] as number[], fan: [] as number[] };
  const run = async (side: 'one' | 'fan', body: string): Promise<number> => {
    const started = performance.now();
    const record = await host.run(`const t0 = Date.now();\n${body};\nreturn Date.now() - t0;`);
    if (!record.ok || typeof record.result !== 'number') throw new Error(`script failed: ${JSON.stringify(record.error)}`);
    inScript[side].push(record.result);
    return performance.now() - started;
  };
  try {
    await host.call({ server: 'fault', tool: 'echo', arguments: { text: 'warm' } });
    const warmupRounds = 1;
    const r = await alternate(
      { rounds: 3, warmupRounds },
      {
        one: () => run('one', `await ${call}`),
        fan: () => run('fan', `await Promise.all(Array.from({ length: ${FAN_OUT} }, () => ${call}))`),
      },
    );
    const [one, fan] = [inScript.one.slice(warmupRounds), inScript.fan.slice(warmupRounds)];
    return [
      row(section, 'script: one sleep(1000) call', 'ms', r.one.samples),
      row(section, `script: Promise.all of ${FAN_OUT} sleep(1000) calls`, 'ms', r.fan.samples),
      row(section, `${FAN_OUT}-way fan-out / one call`, 'x', pairedRatios(r.fan.perRound, r.one.perRound), {
        target: { max: 1.1, label: '≤ 1.10×' },
      }),
      row(section, `${FAN_OUT}-way fan-out / one call, timed in the script`, 'x', pairedRatios(fan, one), {
        note: `${median(one)} → ${median(fan)} ms (medians); compare: 8 Mastra code mode's, timed in the program`,
      }),
    ];
  } finally {
    await host.close();
    remove();
  }
}
