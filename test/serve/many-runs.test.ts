import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpServe, run, serveHttp } from '../support/berry-serve.js';
import { modernHttp, resultOf, runModern } from '../support/berry-serve-modern.js';
import { faultServerPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

// Many runs in flight at once (issue 35): 64 runs from four token holders, two over 2025-11-25
// sessions and two over 2026-07-28 requests, each waiting on the fault fixture's `barrier`,
// which answers only once 64 calls wait together. Every run completes only if serve held all 64
// at once (in its 2 worker processes); a cap that refused or queued one would leave them all
// waiting until their time limit.
const RUNS = 64;
const TOKENS = ['ann-token-0123456789abcdef', 'bob-token-0123456789abcdef', 'cat-token-0123456789abcdef', 'dan-token-0123456789abcdef'];
const BARRIER = `return await tools.mcp_call({ server: 'fault', tool: 'barrier', arguments: { count: ${RUNS} } });`;

describe('serve --http: many runs in flight at once', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let serve: HttpServe | undefined;
  const closers: (() => Promise<unknown>)[] = [];

  before(() => {
    tmp = tempDir('berry-many-runs-');
    writeConfig(tmp.dir, { fault: { command: process.execPath, args: [faultServerPath] } });
    writeFileSync(join(tmp.dir, 'tokens'), TOKENS.map((t, i) => `holder${i} ${t}\n`).join(''), { mode: 0o600 });
  });
  after(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
    await serve?.close();
    tmp.cleanup();
  });

  it(`${RUNS} runs from four holders, in both revisions, all wait on one tool at once and all complete`, async () => {
    serve = await serveHttp(['--config', 'mcp.json', '--token-file', 'tokens', '--workers', '2', '--max-concurrency', String(RUNS)], { cwd: tmp.dir });
    const results: Promise<CallToolResult>[] = [];
    const perHolder = RUNS / TOKENS.length;
    // Two holders over 2025 sessions (two sessions each), two over 2026 requests.
    for (const token of TOKENS.slice(0, 2)) {
      const sessions = [await serve.connect(token), await serve.connect(token)];
      for (let i = 0; i < perHolder; i++) results.push(run(sessions[i % 2]!, BARRIER, { timeoutSeconds: 90 }));
    }
    for (const token of TOKENS.slice(2)) {
      const client = await modernHttp(serve.url, token);
      closers.push(() => client.close());
      for (let i = 0; i < perHolder; i++) results.push(runModern(client, BARRIER, { timeoutMs: 100_000 }) as Promise<CallToolResult>);
    }
    const answers = await Promise.all(results);
    for (const answer of answers) {
      assert.equal(answer.isError, undefined, JSON.stringify(answer.content).slice(0, 300));
      assert.deepEqual(resultOf(answer), { content: [{ type: 'text', text: `met ${RUNS}` }] });
    }
    assert.equal(answers.length, RUNS);
  });
});
