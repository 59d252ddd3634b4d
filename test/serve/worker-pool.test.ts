import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost, type Host } from '../../src/host.js';
import type { RunEntry, RunProgress } from '../../src/runtime/index.js';
import { defaultConcurrency, defaultWorkers } from '../../src/serve/workers/executor.js';
import { WorkerPool } from '../../src/serve/workers/worker-pool.js';
import { ceilingBytes, retirement } from '../../src/serve/workers/worker-process.js';
import { faultEntry } from '../support/fixture-servers.js';
import { FIXTURES_DIR } from '../support/paths.js';
import { workerPidsOf } from '../support/process-memory.js';
import { processAlive } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor, waitForEvent } from '../support/wait.js';
import { writeConfig } from '../support/write-config.js';

const sleep = (ms: number): string => `await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: ${ms} } }); return 'slept ${ms}';`;
const crashingWorker = new URL(`file://${join(FIXTURES_DIR, 'crashing-run-worker.mjs')}`);
/** This process's run workers alive now (Linux). */
const workerPids = (): number[] => workerPidsOf(process.pid);

describe('serve: WorkerPool, scripts in worker processes with the host in serve', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir>;
  let cancelLog: string;
  let eventLog: string;
  let host: Host;
  const pools: WorkerPool[] = [];
  const pool = (options: ConstructorParameters<typeof WorkerPool>[0]): WorkerPool => {
    const made = new WorkerPool(options);
    pools.push(made);
    return made;
  };

  before(async () => {
    tmp = tempDir('berry-worker-pool-');
    cancelLog = join(tmp.dir, 'cancel.log');
    eventLog = join(tmp.dir, 'events.log');
    writeConfig(tmp.dir, { fault: faultEntry([], { env: { FIXTURE_CANCEL_LOG: cancelLog, FIXTURE_EVENT_LOG: eventLog } }) });
    host = createHost({ cwd: tmp.dir, configPath: join(tmp.dir, 'mcp.json') });
    // The fault server is started once, so no test pays its start inside a timing.
    assert.equal((await host.run(sleep(1))).ok, true);
  });
  beforeEach(() => {
    writeFileSync(cancelLog, '');
    writeFileSync(eventLog, '');
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await host.close();
    tmp.cleanup();
  });

  it('defaults to one worker on 1 core, else one per core but one, at least 2 and at most 4', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 16].map((cores) => defaultWorkers(cores)),
      [1, 2, 2, 3, 4, 4],
    );
  });

  it('defaults --max-concurrency to 4 runs per process that runs scripts', () => {
    assert.deepEqual(
      [0, 1, 2, 4].map((workers) => defaultConcurrency(workers)),
      [4, 4, 8, 16],
    );
  });

  it('spreads runs in flight over the workers; calls, progress and outputs cross both ways', async () => {
    const workers = pool({ size: 2 });
    const progress: RunProgress[] = [];
    const outputs: RunEntry[] = [];
    const code = `text('before'); const r = await tools.mcp_call({ server: 'fault', tool: 'progress', arguments: { steps: 2, intervalMs: 150 } });
      await tools.mcp_call({ server: 'fault', tool: 'sleep', arguments: { ms: 400 } }); return r.content[0].text;`;
    const runs = [1, 2].map(() => host.run(code, { runScript: workers.run, onProgress: (p) => progress.push(p), onOutput: (e) => outputs.push(e) }));
    await waitForEvent(eventLog, 'started sleep', { count: 2 });
    assert.deepEqual(
      workers.workers().map((w) => w.runs),
      [1, 1],
      'one run in each worker',
    );
    for (const record of await Promise.all(runs)) {
      assert.equal(record.ok, true, JSON.stringify(record.error));
      assert.equal(record.calls, 2);
      assert.deepEqual(record.outputs, [{ type: 'text', text: 'before' }]);
    }
    assert.ok(
      progress.some((p) => p.fn === 'mcp_call' && p.label === 'fault/progress' && p.progress >= 1),
      JSON.stringify(progress),
    );
    assert.equal(outputs.filter((e) => e.kind === 'output').length, 2);
    assert.deepEqual(
      workers.workers().map((w) => w.runs),
      [0, 0],
    );
  });

  it('forwards thousands of outputs in order, batched per turn of the worker', async () => {
    const workers = pool({ size: 1 });
    const seen: string[] = [];
    const record = await host.run('for (let i = 0; i < 3000; i++) text(String(i)); console.log("end"); return 1;', {
      runScript: workers.run,
      onOutput: (e) => seen.push(e.kind === 'output' && e.output.type === 'text' ? e.output.text : 'log'),
    });
    assert.equal(record.ok, true);
    assert.equal(record.outputs.length, 3000);
    assert.deepEqual(seen, [...Array.from({ length: 3000 }, (_, i) => String(i)), 'log']);
  });

  it('a host error reaches the script with its name, message and code, as in process', async () => {
    const workers = pool({ size: 1 });
    const code = `try { await tools.mcp_call({ server: 'nope', tool: 'x' }); } catch (e) { return [e.code, e.message.slice(0, 40)]; }`;
    const inWorker = await host.run(code, { runScript: workers.run });
    const inProcess = await host.run(code);
    assert.deepEqual(inWorker.result, inProcess.result);
    assert.equal((inWorker.result as string[])[0], 'MCP_UNKNOWN_SERVER');
  });

  it('refuses in serve an answer its run could never hold, before it crosses into the worker', async () => {
    const workers = pool({ size: 1 });
    const sent: number[] = [];
    // 40 MB of text for a 16 MB run: MCP_RESULT_TOO_LARGE, and the worker's heap never sees it.
    const functions = {
      answer: async (args: unknown) => {
        const mb = (args as { mb: number }).mb;
        sent.push(mb);
        return { text: 'x'.repeat(mb * 1024 * 1024) };
      },
    };
    const code = `const out = [];
      for (const mb of [40, 1]) { try { out.push((await tools.answer({ mb })).text.length); } catch (e) { out.push(e.code, e.message); } }
      return out;`;
    const record = await workers.run(code, { functions, memoryLimitMb: 16 });
    assert.equal(record.ok, true, JSON.stringify(record.error));
    const [code40, message40, length1] = record.result as [string, string, number];
    assert.deepEqual([code40, length1], ['MCP_RESULT_TOO_LARGE', 1024 * 1024]);
    // The whole limit as the room: no isolate was measured, so the refusal came from serve's side.
    assert.match(message40, /the run has 16\.0 MB of its 16 MB memory limit/);
    assert.deepEqual(sent, [40, 1]);
  });

  it('an abort ends the run in its worker and cancels its call on the server; that worker is replaced', async () => {
    const warnings: string[] = [];
    const workers = pool({ size: 2, onWarning: (m) => warnings.push(m) });
    const [first] = workers.workers().map((w) => w.pid!);
    const controller = new AbortController();
    const running = host.run(sleep(10_000), { runScript: workers.run, signal: controller.signal });
    await waitForEvent(eventLog, 'started sleep');
    controller.abort();
    const record = await running;
    assert.equal(record.error?.code, 'SCRIPT_ABORTED');
    await waitFor(() => readFileSync(cancelLog, 'utf8').includes('cancelled'), 10_000, 'the sleep call to be cancelled on its server');
    // A stopped run may leave a builtin working in its isolate's thread: its worker goes, a new one takes the slot.
    await waitFor(() => !processAlive(first!), 5_000, 'the worker of the stopped run to end');
    assert.equal(workers.workers().length, 2);
    assert.match(warnings.join('\n'), /is retired: a run in it was aborted/);
  });

  it('a worker that dies fails only its own runs (SERVE_WORKER_FAILED, its call cancelled) and is replaced', async () => {
    const warnings: string[] = [];
    const workers = pool({ size: 2, workerUrl: crashingWorker, onWarning: (m) => warnings.push(m) });
    const before = workers.workers().map((w) => w.pid);
    const doomed = host.run(`/* crash the worker */ ${sleep(10_000)}`, { runScript: workers.run });
    const other = host.run(sleep(800), { runScript: workers.run });
    const [lost, kept] = await Promise.all([doomed, other]);
    assert.equal(lost.ok, false);
    assert.equal(lost.error?.code, 'SERVE_WORKER_FAILED');
    assert.match(lost.error!.message, /exited with code 7/);
    assert.equal(lost.calls, 1);
    assert.equal(kept.ok, true, JSON.stringify(kept.error));
    assert.equal(kept.result, 'slept 800');
    await waitFor(() => readFileSync(cancelLog, 'utf8').includes('cancelled'), 10_000, "the dead run's call to be cancelled");
    assert.match(warnings.join('\n'), /exited with code 7; 1 run was failed, a new worker takes its place at the next run/);
    const again = await Promise.all([1, 2].map(() => host.run('return 40 + 2', { runScript: workers.run })));
    assert.deepEqual(
      again.map((r) => r.result),
      [42, 42],
    );
    const after = workers.workers().map((w) => w.pid);
    assert.equal(after.length, 2);
    assert.equal(after.filter((id) => !before.includes(id)).length, 1, 'exactly one new worker');
  });

  it("a worker that stops answering is killed past the run's time limit + hangGraceMs; its run fails, the next run gets a new worker", async () => {
    const warnings: string[] = [];
    const workers = pool({ size: 1, workerUrl: crashingWorker, hangGraceMs: 500, onWarning: (m) => warnings.push(m) });
    const [stuck] = workers.workers().map((w) => w.pid!);
    const started = performance.now();
    const record = await host.run(`/* hang the worker */ ${sleep(5_000)}`, { runScript: workers.run, timeoutMs: 600 });
    assert.equal(record.error?.code, 'SERVE_WORKER_FAILED');
    assert.match(record.error!.message, /did not end a run within its time limit \+ 0\.5 s.*run it again/);
    assert.ok(performance.now() - started < 5_000);
    await waitFor(() => !processAlive(stuck!), 5_000, 'the stuck worker to be killed');
    assert.equal((await host.run('return 40 + 2', { runScript: workers.run })).result, 42);
    assert.match(warnings.join('\n'), /did not end a run within its time limit/);
  });

  it('retires a worker past its ceiling: its memory at start + 64 MB + twice the memory limit of each run still in it', () => {
    const MB = 1024 * 1024;
    assert.equal(ceilingBytes(50 * MB, []), 114 * MB);
    assert.equal(ceilingBytes(50 * MB, [128, 32]), (114 + 320) * MB);
    const health = (rss: number, parked = 0, runningMb: number[] = []) => ({ type: 'health' as const, rss: rss * MB, parked, runningMb });
    assert.equal(retirement(health(114), 50 * MB), undefined);
    assert.deepEqual({ ...retirement(health(115), 50 * MB), why: '' }, { now: false, why: '' });
    assert.equal(retirement(health(300, 0, [128]), 50 * MB), undefined);
    assert.equal(retirement(health(60, 1), 50 * MB)?.now, true, 'a parked isolate: at once, whatever the memory');
  });

  it('a worker module that cannot start fails each run with SERVE_WORKER_FAILED and is not restarted in a loop', async () => {
    const warnings: string[] = [];
    const workers = pool({ size: 1, workerUrl: new URL('file:///nonexistent/run-worker.js'), onWarning: (m) => warnings.push(m) });
    for (let i = 0; i < 2; i++) {
      const record = await host.run('return 1', { runScript: workers.run });
      assert.equal(record.error?.code, 'SERVE_WORKER_FAILED');
      assert.match(record.error!.message, /exited with code 1/);
    }
    await new Promise((r) => setTimeout(r, 500));
    const seen = warnings.length;
    // The one made at the start, and one per run: none more while no run asks.
    assert.ok(seen <= 3, warnings.join('\n'));
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(warnings.length, seen, warnings.join('\n'));
  });

  it('close ends every worker process; a run still in one ends, and later runs are refused', async () => {
    const base = workerPids();
    const workers = pool({ size: 3 });
    await Promise.all([1, 2, 3].map(() => host.run('return 1', { runScript: workers.run })));
    const mine = workers.workers().map((w) => w.pid!);
    assert.equal(mine.length, 3);
    assert.ok(
      mine.every((pid) => workerPids().includes(pid) && !base.includes(pid)),
      `workers ${mine.join(' ')}, alive ${workerPids().join(' ')}`,
    );
    const running = host.run(sleep(10_000), { runScript: workers.run });
    await waitForEvent(eventLog, 'started sleep');
    await workers.close(200);
    const record = await running;
    assert.equal(record.error?.code, 'SERVE_WORKER_FAILED');
    await waitFor(() => mine.every((pid) => !processAlive(pid)), 5_000, `the worker processes to end (${workerPids().join(' ')} alive)`);
    await assert.rejects(host.run('return 1', { runScript: workers.run }), { code: 'SCRIPT_SETUP_FAILED' });
    await waitFor(() => readFileSync(cancelLog, 'utf8').includes('cancelled'), 10_000, 'the call of the run cut short to be cancelled');
  });
});
