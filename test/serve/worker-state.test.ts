import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createHost, type Host } from '../../src/host.js';
import { createRunState, type RunState } from '../../src/runtime/index.js';
import { WorkerPool } from '../../src/serve/workers/worker-pool.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

// A run's state in a worker process: a copy goes with the script, the changes come back with the record.
describe('serve: a run’s state through a worker process', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let host: Host;
  let pool: WorkerPool;

  before(() => {
    tmp = tempDir('berry-worker-state-');
    writeConfig(tmp.dir, {});
    host = createHost({ cwd: tmp.dir, configPath: join(tmp.dir, 'mcp.json') });
    pool = new WorkerPool({ size: 1 });
  });
  after(async () => {
    await pool.close();
    await host.close();
    tmp.cleanup();
  });

  it('the worker sees the state as it was, and what it changed is applied as the run ends, a timed-out run included', async () => {
    const state = createRunState({ values: { kept: 'from serve', gone: 1 } });
    const record = await host.run(`store('added', load('kept') + ', seen in the worker'); store('gone', undefined); return process?.pid`, {
      state,
      runScript: pool.run,
    });
    assert.equal(record.ok, false, 'process is not defined in the sandbox');
    assert.deepEqual(state.toJSON(), Object.assign(Object.create(null), { kept: 'from serve', added: 'from serve, seen in the worker' }));
    const timedOut = await host.run(`store('before', 'the loop'); for (;;) {}`, { state, runScript: pool.run, timeoutMs: 300 });
    assert.equal(timedOut.error?.code, 'SCRIPT_TIMEOUT');
    assert.equal(state.get('before'), 'the loop');
  });

  it('a run whose worker dies loses its writes; the state is as it was', async () => {
    const state = createRunState({ values: { a: 1 } });
    const running = host.run(`store('a', 2); store('b', 3); await new Promise(() => {})`, { state, runScript: pool.run, timeoutMs: 30_000 });
    await waitFor(() => pool.workers().some((w) => w.runs === 1), 10_000, 'the run in its worker');
    // Let the stores happen before the worker goes.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const pid = pool.workers().find((w) => w.runs === 1)!.pid!;
    process.kill(pid, 'SIGKILL');
    const record = await running;
    assert.equal(record.error?.code, 'SERVE_WORKER_FAILED');
    assert.deepEqual(state.toJSON(), Object.assign(Object.create(null), { a: 1 }));
  });

  it('refuses a state that createRunState did not make, before anything crosses', async () => {
    const lookalike = { get: () => 1 } as unknown as RunState;
    await assert.rejects(pool.run('return 1', { functions: {}, state: lookalike }), /options\.state must be a state made by createRunState\(\)/);
  });
});
