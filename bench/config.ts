/**
 * Section 4: the cost of rereading mcp.json on every operation. `host.readConfig()` runs exactly
 * the per-operation preparation (machine lifetime, read + parse/validate/expand, pool sync) that
 * every list/describe/call pays; it is timed on a 20-server file and set against a warm raw echo
 * call. Also host.call on a 20-server file against the same call on a 1-server file.
 */
import { createHost } from '../src/index.js';
import { ECHO, everythingEntry, everythingPath, NODE, rawEcho, rawStdio, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios, timeEach } from './stats.js';

const SECTION = '4 config reread';
const CALLS = 1000;
const ROUNDS = 8;

/** 20 entries like a real file: stdio and HTTP, env, headers, ${VAR}s, a disabled one. */
export function twentyServers(): Record<string, unknown> {
  const servers: Record<string, unknown> = { everything: everythingEntry() };
  for (let i = 1; i < 20; i++) {
    if (i % 2 === 0) {
      servers[`http${i}`] = {
        url: `https://mcp${i}.example.com/mcp`,
        headers: { Authorization: 'Bearer ${HOME}', 'X-Index': String(i) },
        timeout: 30,
      };
    } else {
      servers[`stdio${i}`] = {
        command: NODE,
        args: [`/opt/servers/server-${i}/dist/index.js`, '--root', '${HOME}/work'],
        env: { SERVER_INDEX: String(i), LOG_LEVEL: 'info' },
        ...(i === 19 ? { enabled: false } : {}),
      };
    }
  }
  return servers;
}

export default async function configReread(): Promise<Row[]> {
  const { dir, remove } = tempDir('config');
  const host20 = createHost({ cwd: dir, configPath: writeConfig(`${dir}/twenty`, twentyServers()) });
  const host1 = createHost({ cwd: dir, configPath: writeConfig(`${dir}/one`, { everything: everythingEntry() }) });
  const raw = await rawStdio(NODE, [everythingPath]);
  try {
    await Promise.all([host20.call(ECHO), host1.call(ECHO)]);
    const r = await alternate(
      { rounds: ROUNDS, warmupRounds: 1 },
      {
        reread20: () => timeEach(CALLS, () => host20.readConfig()),
        reread1: () => timeEach(CALLS, () => host1.readConfig()),
        raw: () => timeEach(CALLS, () => rawEcho(raw)),
        call20: () => timeEach(CALLS, () => host20.call(ECHO)),
        call1: () => timeEach(CALLS, () => host1.call(ECHO)),
      },
    );
    const percent = pairedRatios(r.reread20.perRoundMedian, r.raw.perRoundMedian).map((x) => x * 100);
    return [
      row(SECTION, 'per-operation reread, 20-server mcp.json', 'ms', r.reread20.samples, { note: 'host.readConfig()' }),
      row(SECTION, 'per-operation reread, 1-server mcp.json', 'ms', r.reread1.samples),
      row(SECTION, 'raw SDK callTool(echo), per call', 'ms', r.raw.samples),
      row(SECTION, 'reread (20 servers) / warm raw echo call', '%', percent, {
        target: { max: 10, label: '≤ 10 %' },
        note: 'per round: median reread over median raw call',
      }),
      row(SECTION, 'host.call(echo): 20-server file / 1-server file', 'x', pairedRatios(r.call20.perRoundMedian, r.call1.perRoundMedian)),
    ];
  } finally {
    await Promise.all([host20.close(), host1.close(), raw.close()]);
    remove();
  }
}
