/**
 * Section 11: one 50 MB tool result, over stdio (the fault fixture's `big`) and over Streamable
 * HTTP (the HTTP fixture's `big`), in alternating rounds on warm connections. Parsing stdio must
 * stay linear: the ratio stdio / HTTP shows whether it does (a reader that concatenates its buffer
 * on every 64 KB chunk would copy ~20 GB for one such line).
 */
import { createHost } from '../src/index.js';
import { startHttpFixture } from '../test/support/fixture-servers.js';
import { faultEntry, tempDir, writeConfig } from './fixtures.js';
import { row, type Row } from './rows.js';
import { alternate, pairedRatios, timeOnce } from './stats.js';

const SECTION = '11 large results';
const BYTES = 50 * 1000 * 1000;
const ROUNDS = 5;

export default async function largeResults(): Promise<Row[]> {
  const http = await startHttpFixture();
  const { dir, remove } = tempDir('large');
  const host = createHost({
    cwd: dir,
    configPath: writeConfig(dir, { stdio: faultEntry(), http: { url: http.url } }),
  });
  const fetch = (server: 'stdio' | 'http') => async (): Promise<number> =>
    timeOnce(async () => {
      const result = await host.call({ server, tool: 'big', arguments: { bytes: BYTES } });
      const text = (result.content[0] as { text?: string } | undefined)?.text;
      if (text?.length !== BYTES) throw new Error(`${server}: got ${text?.length ?? 'no'} characters, expected ${BYTES}`);
    });
  try {
    await host.call({ server: 'stdio', tool: 'echo', arguments: { text: 'warm' } });
    await host.call({ server: 'http', tool: 'echo', arguments: { text: 'warm' } });
    const r = await alternate({ rounds: ROUNDS, warmupRounds: 1 }, { stdio: fetch('stdio'), http: fetch('http') });
    return [
      row(SECTION, '50 MB result over stdio (host.call, whole round trip)', 'ms', r.stdio.samples),
      row(SECTION, '50 MB result over Streamable HTTP', 'ms', r.http.samples),
      row(SECTION, '50 MB result: stdio / HTTP', 'x', pairedRatios(r.stdio.perRound, r.http.perRound)),
    ];
  } finally {
    await host.close();
    await http.close();
    remove();
  }
}
