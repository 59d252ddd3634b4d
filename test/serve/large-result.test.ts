import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HttpServe, run as runOn, serveHttp, texts } from '../support/berry-serve.js';
import { filesystemPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const TOKEN = 'test-token-large-0123456789';
const MB = 1024 * 1024;

/**
 * "The host survives any server and any script", for serve: one client's script reads a file
 * larger than the run memory through the reference filesystem server while another client's runs
 * go on. Before the bound the read aborted serve (ivm::FatalRuntimeError) and took every run down.
 */
describe('berry-mcp serve: a result larger than the run memory fails that run only', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let serve: HttpServe;
  const big = (): string => join(tmp.dir, 'big.txt');

  before(async () => {
    tmp = tempDir('berry-serve-large-');
    writeFileSync(big(), 'a'.repeat(40 * MB));
    writeFileSync(join(tmp.dir, 'small.txt'), 'small');
    writeConfig(tmp.dir, { files: { command: process.execPath, args: [filesystemPath, tmp.dir] } });
    serve = await serveHttp(['--config', 'mcp.json', '--memory', '16'], { cwd: tmp.dir, env: { BERRY_SERVE_TOKEN: TOKEN } });
  });

  after(async () => {
    await serve?.close();
    tmp.cleanup();
  });

  it("one client's 40 MB read fails with MCP_RESULT_TOO_LARGE; the other client's runs complete; serve lives", async () => {
    const [reader, other] = await Promise.all([serve.connect(TOKEN), serve.connect(TOKEN)]);
    // Fail at once, not at the request timeout, if serve dies.
    const died = new Promise<never>((_resolve, reject) =>
      serve.child.once('exit', (code, signal) => reject(new Error(`serve exited (${code ?? signal}): ${serve.stderr().slice(-500)}`))),
    );
    died.catch(() => {});
    const run = (client: Client, code: string): Promise<CallToolResult> => Promise.race([runOn(client, code), died]);
    const readSmall = `const r = await tools.mcp_call({ server: 'files', tool: 'read_text_file', arguments: { path: ${JSON.stringify(join(tmp.dir, 'small.txt'))} } });
      return r.content[0].text;`;
    // The other client keeps runs going while the large read is under way, and two after it.
    let readDone = false;
    const others = (async () => {
      const results = [];
      for (let after = 0; after < 2; after += readDone ? 1 : 0) results.push(await run(other, readSmall));
      return results;
    })();
    const failed = await run(reader, `await tools.mcp_call({ server: 'files', tool: 'read_text_file', arguments: { path: ${JSON.stringify(big())} } });`);
    readDone = true;
    assert.equal(failed.isError, true);
    assert.equal((failed.structuredContent?.['error'] as { code?: string } | undefined)?.code, 'MCP_RESULT_TOO_LARGE');
    assert.match(texts(failed).at(-1)!, /^RangeError \[MCP_RESULT_TOO_LARGE\].*of its 16 MB memory limit/);
    const done = await others;
    assert.ok(done.length >= 3, `${done.length} runs`);
    for (const result of done) {
      assert.equal(result.isError, undefined, texts(result).join('\n'));
      assert.equal(result.structuredContent?.['result'], 'small');
    }
    // The reader's own connection, and serve, go on.
    assert.equal((await run(reader, readSmall)).structuredContent?.['result'], 'small');
    assert.equal(serve.child.exitCode, null);
    assert.equal(serve.child.signalCode, null);
    assert.doesNotMatch(serve.stderr(), /FatalRuntimeError|terminate called/);
  });
});
