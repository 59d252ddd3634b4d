// berry-mcp search QUERY [--server S] [--limit N]: for people and as --json, from saved catalogs on
// the second run, and its usage errors.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { berry } from '../support/berry-cli.js';
import { everythingPath, filesystemPath, memoryPath } from '../support/paths.js';
import type { CliResult } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

describe('CLI: search', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let cache: string;
  let config: string;
  const cli = (args: string[]): Promise<CliResult> => berry([...args, '--config', config], { cwd: tmp.dir, env: { XDG_CACHE_HOME: cache } });

  before(() => {
    tmp = tempDir();
    cache = mkdtempSync(join(tmpdir(), 'berry-cli-search-cache-'));
    config = writeConfig(tmp.dir, {
      everything: { command: process.execPath, args: [everythingPath] },
      files: { command: process.execPath, args: [filesystemPath, tmp.dir] },
      memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: join(tmp.dir, 'm.jsonl') } },
    });
  });
  after(() => {
    tmp.cleanup();
    rmSync(cache, { recursive: true, force: true });
  });

  it('prints the best tools first, each with its signature; the next run answers from saved catalogs', async () => {
    const first = await cli(['search', 'write file', '-v']);
    assert.equal(first.code, 0, first.stderr);
    const lines = first.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^files\/write_file \(Write File\) — Create a new file/);
    assert.match(lines[1]!, /^ {2}\(\{ path: string; content: string \}\)/);
    assert.equal(lines.length, 20, first.stdout);
    assert.match(first.stderr, /spawned/);
    const second = await cli(['search', 'add numbers', '--server', 'everything', '--limit', '1', '-v']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'everything/get-sum (Get Sum Tool) — Returns the sum of two numbers\n  ({ a: number; b: number })\n');
    assert.doesNotMatch(second.stderr, /spawned/);
  });

  it('--json prints what tools.mcp_search returns; no match says so', async () => {
    const json = await cli(['search', 'entity', '--server', 'memory', '--limit', '3', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const result = JSON.parse(json.stdout) as { tools: { server: string; name: string; description: string; signature: string }[] };
    assert.equal(result.tools.length, 3);
    assert.ok(result.tools.every((hit) => hit.server === 'memory' && /entit/.test(hit.description) && hit.signature.startsWith('(')));
    const none = await cli(['search', 'zzqqxx']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, 'No tool matches "zzqqxx".\n');
  });

  it('refuses a bad --limit, a missing query and an unknown server', async () => {
    for (const [args, expected] of [
      [['search', 'file', '--limit', '0'], /^berry-mcp: --limit needs a number of tools from 1 to 50, got "0"\nsee `berry-mcp help search`\n$/],
      [['search', 'file', '--limit', '1e9'], /--limit needs a number of tools from 1 to 50/],
      [['search', 'file', '--limit', '2.5'], /--limit needs a whole number of tools/],
      [['search'], /^berry-mcp: "search" takes one QUERY \(quote several words\), got 0 arguments/],
      [['search', 'write', 'file'], /got 2 arguments/],
    ] as const) {
      const result = await cli([...args]);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, expected, args.join(' '));
    }
    const unknown = await cli(['search', 'file', '--server', 'fils']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown server "fils".*\[MCP_UNKNOWN_SERVER\]/s);
  });
});
