import assert from 'node:assert/strict';
import { checkNodeFlags } from '../../src/runtime/index.js';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { hasNoNodeSnapshot, refusedFlags } from '../../src/runtime/node-flags.js';
import { PROJECT_ROOT } from '../support/paths.js';

/** Runs one script with runScript in a Node started with `flags`; prints the record or the setup error. */
function runUnder(
  flags: string[],
  code: string,
): { record?: { ok: boolean; result?: unknown; error?: { code?: string } }; error?: { code: string; message: string } } {
  const runtime = join(PROJECT_ROOT, 'dist/src/runtime/index.js');
  const program = `
    const { runScript } = await import(${JSON.stringify(runtime)});
    try { console.log(JSON.stringify({ record: await runScript(${JSON.stringify(code)}, { functions: {} }) })); }
    catch (e) { console.log(JSON.stringify({ error: { code: e.code, message: e.message } })); }`;
  const child = spawnSync(process.execPath, ['--no-node-snapshot', ...flags, '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

describe('checkNodeFlags', () => {
  it('finds --no-node-snapshot in the arguments or in NODE_OPTIONS', () => {
    assert.equal(hasNoNodeSnapshot(['--no-node-snapshot'], undefined), true);
    assert.equal(hasNoNodeSnapshot([], '--max-old-space-size=100  --no-node-snapshot'), true);
    assert.equal(hasNoNodeSnapshot(['--inspect'], '--no-node-snapshots'), false);
    assert.equal(hasNoNodeSnapshot([], undefined), false);
  });

  it('normalizes _ and - and one or two dashes, and finds refused flags in NODE_OPTIONS too', () => {
    assert.deepEqual(refusedFlags(['--allow_natives_syntax'], undefined), ['--allow_natives_syntax']);
    assert.deepEqual(refusedFlags([], '--max-old-space-size=64 -allow-natives_syntax'), ['-allow-natives_syntax']);
    assert.deepEqual(refusedFlags(['--expose-trigger-failure', '--expose_gc_as=peek', '--expose-statistics', '--expose-externalize-string'], undefined), [
      '--expose-trigger-failure',
      '--expose_gc_as=peek',
      '--expose-statistics',
      '--expose-externalize-string',
    ]);
    assert.deepEqual(refusedFlags(['--expose-gc', '--expose_gc', '--no-node-snapshot', '--noallow-natives-syntax'], '--trace-gc'), []);
    assert.equal(hasNoNodeSnapshot(['--no_node_snapshot'], undefined), true);
  });

  for (const flag of ['--allow_natives_syntax', '--allow-natives-syntax', '--expose-trigger-failure', '--expose-gc-as=peek', '--expose_statistics']) {
    it(`refuses to run scripts in a Node started with ${flag}`, () => {
      const { error } = runUnder([flag], 'return typeof peek + typeof statistics + typeof triggerFailure');
      assert.equal(error?.code, 'SCRIPT_SETUP_FAILED');
      assert.ok(error.message.includes(flag), error.message);
    });
  }

  it('allows --expose-gc, whose global the sandbox empties', () => {
    const { error, record } = runUnder(['--expose_gc'], 'return typeof gc');
    assert.equal(error, undefined);
    assert.equal(record?.result, 'undefined');
  });

  it('refuses natives syntax switched on after start (v8.setFlagsFromString)', () => {
    const program = `
      const { setFlagsFromString } = await import('node:v8');
      setFlagsFromString('--allow_natives_syntax');
      const { runScript } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist/src/runtime/index.js'))});
      try { await runScript('return %GetHeapUsage()', { functions: {} }); console.log('ran'); } catch (e) { console.log(e.code); }`;
    const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(child.stdout.trim(), 'SCRIPT_SETUP_FAILED', child.stderr);
  });

  it('refuses natives syntax switched on between two runs, and runs again once it is off', () => {
    const program = `
      const { setFlagsFromString } = await import('node:v8');
      const { runScript } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist/src/runtime/index.js'))});
      const run = (code) => runScript(code, { functions: {} }).then((r) => String(r.result), (e) => e.code);
      const seen = [await run('return 1')];
      setFlagsFromString('--allow_natives_syntax');
      seen.push(await run('return %GetHeapUsage() > 0'));
      setFlagsFromString('--no-allow_natives_syntax');
      seen.push(await run('return 3'));
      console.log(seen.join(' '));`;
    const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(child.stdout.trim(), '1 SCRIPT_SETUP_FAILED 3', child.stderr);
  });

  it('empties globals that flags set after start add (expose-gc-as via setFlagsFromString)', () => {
    const program = `
      const { setFlagsFromString } = await import('node:v8');
      setFlagsFromString('--expose-gc-as=peek');
      const { runScript } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist/src/runtime/index.js'))});
      const record = await runScript('return [typeof peek, typeof gc, Object.getOwnPropertyNames(globalThis).includes("peek")]', { functions: {} });
      console.log(JSON.stringify(record.result ?? record.error));`;
    const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    assert.deepEqual(JSON.parse(child.stdout), ['undefined', 'undefined', false], child.stderr);
  });

  it('passes in this process (mocha runs with the flag)', () => {
    assert.doesNotThrow(() => checkNodeFlags());
  });
});
