import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpServe, run, serveHttp } from '../support/berry-serve.js';
import { modernHttp, resultOf, runModern } from '../support/berry-serve-modern.js';
import { faultServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { events, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

// Many runs in flight (issue 35), attacked: with 64 slots, one token holder sends far more runs
// than there are slots, by the cheapest ways around a client's cap (many 2025 sessions, and 2026
// requests from new clients under new names), each run waiting forever on a tool. It gets its
// holder's three quarters (48) and no more; the other holder's 16 runs, which complete only when
// all 16 wait on the fixture's barrier together, all get a slot at once.
const SLOTS = 64;
const SHARE = 48;
const ALICE = 'alice-token-0123456789abcdef';
const MALLORY = 'mallory-token-0123456789abcd';
const HOG = "await tools.mcp_call({ server: 'fault', tool: 'hang', arguments: {} });";

describe('attacks: one holder cannot take every slot of a serve with many runs in flight', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let eventLog: string;
  let serve: HttpServe | undefined;
  const closers: (() => Promise<unknown>)[] = [];

  before(() => {
    tmp = tempDir('berry-attack-many-runs-');
    eventLog = join(tmp.dir, 'events.log');
    writeFileSync(eventLog, '');
    writeConfig(tmp.dir, { fault: { command: process.execPath, args: [faultServerPath], env: { FIXTURE_EVENT_LOG: eventLog } } });
    writeFileSync(join(tmp.dir, 'tokens'), `alice ${ALICE}\nmallory ${MALLORY}\n`, { mode: 0o600 });
  });
  after(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
    await serve?.close();
    tmp.cleanup();
  });

  const hangs = (): number => events(eventLog).filter((line) => line === 'started hang').length;

  it(`a holder flooding ${SLOTS} slots through many sessions and 2026 clients holds ${SHARE}; another holder's 16 runs all run at once`, async () => {
    serve = await serveHttp(['--config', 'mcp.json', '--token-file', 'tokens', '--workers', '2', '--max-concurrency', String(SLOTS)], { cwd: tmp.dir });
    const hogs: Promise<unknown>[] = [];
    // Six sessions of 12 runs, and three 2026 clients (each its own name) of 8: 96 runs for 64 slots.
    for (let s = 0; s < 6; s++) {
      const session = await serve.connect(MALLORY);
      for (let i = 0; i < 12; i++) hogs.push(run(session, HOG, { timeoutSeconds: 110 }));
    }
    for (let c = 0; c < 3; c++) {
      const client = await modernHttp(serve.url, MALLORY);
      closers.push(() => client.close());
      for (let i = 0; i < 8; i++) hogs.push(runModern(client, HOG));
    }
    for (const hog of hogs) hog.catch(() => {});
    await waitForEvent(eventLog, 'started hang', { count: SHARE, timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(hangs(), SHARE, "the flooding holder's runs executing");

    const barrier = "return await tools.mcp_call({ server: 'fault', tool: 'barrier', arguments: { count: 16 } });";
    const session = await serve.connect(ALICE);
    const modern = await modernHttp(serve.url, ALICE);
    closers.push(() => modern.close());
    // Each fails after 30 s if the 16 never wait together (a run that found no slot).
    const answers: CallToolResult[] = await Promise.all([
      ...Array.from({ length: 8 }, () => run(session, barrier, { signal: AbortSignal.timeout(30_000) })),
      ...Array.from({ length: 8 }, () => runModern(modern, barrier, { signal: AbortSignal.timeout(30_000) }) as Promise<CallToolResult>),
    ]);
    for (const answer of answers) assert.deepEqual(resultOf(answer), { content: [{ type: 'text', text: 'met 16' }] }, JSON.stringify(answer.content));
    // The slots alice freed went to nobody past mallory's share.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(hangs(), SHARE);
  });
});
