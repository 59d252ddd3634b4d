// tools.mcp_search in a served run, on both revisions: the script runs in a worker process and its
// search crosses back to serve's one host, like every other tools.mcp_* function.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { run, serveStdio } from '../support/berry-serve.js';
import { modernStdio, resultOf, runModern } from '../support/berry-serve-modern.js';
import { everythingPath, filesystemPath, memoryPath } from '../support/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

const SCRIPT = `const found = await tools.mcp_search({ query: 'write file', limit: 3 });
const entity = await tools.mcp_search({ query: 'entity', server: 'memory', limit: 1 });
let refused;
try { await tools.mcp_search({ query: 'x', limit: 1e9 }); } catch (e) { refused = e.code; }
return { first: found.tools[0], count: found.tools.length, entity: entity.tools.map((t) => t.name), refused };`;

interface Answer {
  first: { server: string; name: string; description: string; signature: string };
  count: number;
  entity: string[];
  refused: string;
}

function check(answer: Answer): void {
  assert.equal(answer.first.server, 'files');
  assert.equal(answer.first.name, 'write_file');
  assert.match(answer.first.signature, /^\(\{ path: string; content: string \}\)/);
  assert.equal(answer.count, 3);
  assert.equal(answer.entity.length, 1);
  assert.match(answer.entity[0]!, /entit/);
  assert.equal(answer.refused, 'MCP_INVALID_ARGUMENT');
}

describe('berry-mcp serve: tools.mcp_search', function () {
  this.timeout(90_000);
  let tmp: ReturnType<typeof tempDir>;

  before(() => {
    tmp = tempDir('berry-serve-search-');
    writeConfig(tmp.dir, {
      everything: { command: process.execPath, args: [everythingPath] },
      files: { command: process.execPath, args: [filesystemPath, tmp.dir] },
      memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(tmp.dir, 'm.jsonl') } },
    });
  });
  after(() => tmp.cleanup());

  it('searches from a run in a worker process (2025-11-25 client)', async () => {
    const serve = await serveStdio(['--config', 'mcp.json', '--workers', '1'], { cwd: tmp.dir });
    try {
      const result = await run(serve.client, SCRIPT);
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      check(result.structuredContent?.['result'] as Answer);
    } finally {
      await serve.close();
    }
  });

  it('searches from a run (2026-07-28 client), in serve and in a worker', async () => {
    for (const workers of ['0', '1']) {
      const serve = await modernStdio(['--config', 'mcp.json', '--workers', workers], { cwd: tmp.dir });
      try {
        const result = await runModern(serve.client, SCRIPT);
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        check(resultOf(result) as Answer);
      } finally {
        await serve.close();
      }
    }
  });
});
