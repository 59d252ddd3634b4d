/**
 * Section 6: warm echo calls over Streamable HTTP, on one server-everything HTTP process bound to
 * 127.0.0.1: host.call against a raw SDK client with StreamableHTTPClientTransport (each its own
 * session on the same server), in alternating rounds.
 */
import { createHost } from '../src/index.js';
import { startEverythingHttp } from '../test/support/fixture-servers.js';
import { ECHO, rawEcho, rawHttp, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios, timeEach } from './stats.js';

const SECTION = '6 HTTP warm call';
const CALLS = 200;
const ROUNDS = 5;

export default async function httpCalls(): Promise<Row[]> {
  const server = await startEverythingHttp();
  const { dir, remove } = tempDir('http');
  const host = createHost({ cwd: dir, configPath: writeConfig(dir, { everything: { url: server.url } }) });
  try {
    const raw = await rawHttp(server.url);
    try {
      await host.call(ECHO);
      const r = await alternate(
        { rounds: ROUNDS, warmupRounds: 1 },
        {
          raw: () => timeEach(CALLS, () => rawEcho(raw)),
          hostCall: () => timeEach(CALLS, () => host.call(ECHO)),
        },
      );
      return [
        row(SECTION, 'raw SDK callTool(echo) over HTTP, per call', 'ms', r.raw.samples),
        row(SECTION, 'host.call(echo) over HTTP, per call', 'ms', r.hostCall.samples),
        row(SECTION, 'host.call / raw over HTTP (median call)', 'x', pairedRatios(r.hostCall.perRoundMedian, r.raw.perRoundMedian)),
        row(SECTION, 'host.call / raw over HTTP (mean call)', 'x', pairedRatios(r.hostCall.perRound, r.raw.perRound)),
      ];
    } finally {
      await raw.close();
    }
  } finally {
    await host.close();
    await server.close();
    remove();
  }
}
