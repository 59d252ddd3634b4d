import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/paths.js';
import { runSelfKilling } from '../support/processes.js';

/**
 * Scripts that used to abort the whole host process: V8 gives up on one allocation it cannot fit
 * (no RangeError, no graceful limit), or hits a fatal "invalid size" (crbug.com/1201626). Each
 * runs in a child process, since a failure here kills the process that runs it. A guard now
 * refuses the huge-string ones before V8 starts (a RangeError); a hash table grown past the limit
 * (mapHuge) still makes V8 give up, and parks the isolate.
 */
const HUGE = 'let s = "ab"; while (s.length < 2 ** 28) s = s + s;';
const ATTACKS: Record<string, string> = {
  splitHuge: `${HUGE} s.split("");`,
  splitHugeOnChar: `${HUGE} s.split("a");`,
  jsonParseHugeArray: 'let s = "1,"; while (s.length < 2 ** 28) s = s + s; JSON.parse("[" + s + "1]");',
  concatHuge: 'const a = new Array(2 ** 27).fill(0); a.concat(a).length;',
  matchHuge: `${HUGE} s.match(/a/g).length;`,
  replaceHugeWithFunction: `${HUGE} s.replace(/a/g, () => "b").length;`,
  mapHuge: 'const m = new Map(); for (let i = 0; i < 2 ** 26; i++) m.set(i, 1);',
};

describe('runtime: scripts that make V8 give up do not take the host down', function () {
  this.timeout(120_000);

  it('each ends its run (SCRIPT_MEMORY_LIMIT or a RangeError), and the host then runs a normal script', () => {
    const runtime = join(PROJECT_ROOT, 'dist/src/runtime/index.js');
    const program = `
      const { runScript } = await import(${JSON.stringify(runtime)});
      const attacks = ${JSON.stringify(ATTACKS)};
      const out = {};
      for (const [name, code] of Object.entries(attacks)) {
        const record = await runScript(code, { functions: {}, timeoutMs: 20000 });
        out[name] = [record.error?.code, record.error?.name];
      }
      out.after = (await runScript('return 6 * 7', { functions: {} })).result;
      console.log(JSON.stringify(out));
      // A parked isolate thread makes even process.exit() hang (see src/bin.ts).
      process.kill(process.pid, 'SIGKILL');`;
    const out = runSelfKilling(program) as Record<string, unknown>;
    assert.deepEqual(out['splitHuge'], ['SCRIPT_ERROR', 'RangeError']);
    assert.deepEqual(out['splitHugeOnChar'], ['SCRIPT_ERROR', 'RangeError']);
    assert.deepEqual(out['jsonParseHugeArray'], ['SCRIPT_ERROR', 'RangeError']);
    // fill refuses more elements than the memory limit could hold (on Node 26 it took 25 s and 2 GB).
    assert.deepEqual(out['concatHuge'], ['SCRIPT_ERROR', 'RangeError']);
    // match parked its isolate with 1.6 GB; replace with a function killed the process ("invalid size").
    assert.deepEqual(out['matchHuge'], ['SCRIPT_ERROR', 'RangeError']);
    assert.deepEqual(out['replaceHugeWithFunction'], ['SCRIPT_ERROR', 'RangeError']);
    assert.equal((out['mapHuge'] as string[])[0], 'SCRIPT_MEMORY_LIMIT');
    assert.equal(out['after'], 42);
  });

  it('berry-mcp run reports it and exits with status 1, not hanging on the parked isolate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berry-oom-'));
    try {
      writeFileSync(join(dir, 'oom.js'), ATTACKS['mapHuge']!);
      writeFileSync(join(dir, 'mcp.json'), '{ "mcpServers": {} }');
      const started = performance.now();
      const child = spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist/src/bin.js'), 'run', 'oom.js', '--config', 'mcp.json'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 90_000,
      });
      assert.equal(child.status, 1, `exit ${child.status} ${child.signal}: ${child.stderr.slice(-1000)}`);
      assert.match(child.stderr, /SCRIPT_MEMORY_LIMIT/);
      // 5–13 s alone (Node 26, Node 20), slower under load; a hang would never end.
      assert.ok(performance.now() - started < 60_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
