// Task-augmented calls: server-everything's simulate-research-query (taskSupport "required") and
// the fault fixture's task tools (--tasks), with progress, cancellation and the whole-task timeout.
import assert from 'node:assert/strict';
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProgressEvent } from '../../src/bindings/index.js';
import { isBerryError } from '../../src/common/errors.js';
import { faultEntry } from '../support/fixture-servers.js';
import { everythingPath } from '../support/paths.js';
import { useTestHost } from '../support/test-host.js';
import { waitFor, waitForEvent } from '../support/wait.js';

describe('task-augmented tool calls', function () {
  this.timeout(60_000);
  let cancelLog: string;
  let eventLog: string;

  const t = useTestHost((dir) => {
    cancelLog = join(dir, 'cancel.log');
    eventLog = join(dir, 'events.log');
    const env = { FIXTURE_CANCEL_LOG: cancelLog, FIXTURE_EVENT_LOG: eventLog };
    return {
      everything: { command: process.execPath, args: [everythingPath] },
      tasks: faultEntry(['--tasks'], { env }),
      quick: faultEntry(['--tasks'], { env, timeout: 3 }),
    };
  });

  const cancelled = (): string[] => (existsSync(cancelLog) ? readFileSync(cancelLog, 'utf8').split('\n').filter(Boolean) : []);

  it("runs server-everything's simulate-research-query as a task and returns its ordinary result", async () => {
    const events: ProgressEvent[] = [];
    const result = await t.host.call(
      { server: 'everything', tool: 'simulate-research-query', arguments: { topic: 'berries' } },
      { onProgress: (event) => events.push(event) },
    );
    assert.notEqual(result.isError, true);
    const first = result.content[0];
    assert.ok(first?.type === 'text' && first.text.includes('Research Report: berries'), JSON.stringify(result).slice(0, 200));
    assert.ok(
      events.some((e) => e.message === 'Gathering sources...'),
      JSON.stringify(events),
    );
  });

  it('gives a script the ordinary mcp_call result of a task tool', async () => {
    const record = await t.host.run(
      `const r = await tools.mcp_call({ server: "tasks", tool: "task_sleep", arguments: { ms: 100 } });\ntext(r.content[0].text);`,
    );
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.deepEqual(record.outputs, [{ type: 'text', text: 'slept 100 as a task' }]);
  });

  it('forwards progress notifications and status messages of a task', async () => {
    const events: ProgressEvent[] = [];
    await t.host.call({ server: 'tasks', tool: 'task_sleep', arguments: { ms: 300, steps: 3 } }, { onProgress: (e) => events.push(e) });
    assert.ok(
      events.some((e) => e.progress === 3 && e.total === 3),
      JSON.stringify(events),
    );
    assert.ok(
      events.some((e) => e.message === 'step 2'),
      JSON.stringify(events),
    );
  });

  it('calls an optional task tool as a task when the server runs tasks', async () => {
    const result = await t.host.call({ server: 'tasks', tool: 'task_optional' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'answered as a task' }]);
  });

  it('sends tasks/cancel when the caller aborts, and rejects MCP_CANCELLED', async () => {
    const before = cancelled().length;
    const ac = new AbortController();
    writeFileSync(eventLog, '');
    const call = t.host.call({ server: 'tasks', tool: 'task_sleep', arguments: { ms: 5000 } }, { signal: ac.signal });
    await waitForEvent(eventLog, 'started task_sleep');
    ac.abort();
    await assert.rejects(call, (error: unknown) => isBerryError(error) && error.code === 'MCP_CANCELLED');
    await waitFor(
      () =>
        cancelled()
          .slice(before)
          .some((line) => line.startsWith('task-cancelled ')),
      5000,
      'task-cancelled in the log',
    );
  });

  it('bounds the whole task by the entry timeout: MCP_TIMEOUT, and the task is cancelled', async () => {
    const before = cancelled().length;
    const started = Date.now();
    await assert.rejects(t.host.call({ server: 'quick', tool: 'task_sleep', arguments: { ms: 30000 } }), (error: unknown) => {
      assert.ok(isBerryError(error) && error.code === 'MCP_TIMEOUT', String(error));
      assert.match(error.message, /the whole task/);
      return true;
    });
    assert.ok(Date.now() - started < 20_000);
    await waitFor(
      () =>
        cancelled()
          .slice(before)
          .some((line) => line.startsWith('task-cancelled ')),
      5000,
      'task-cancelled in the log',
    );
  });
});
