import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHost } from '../../src/index.js';
import { faultEntry } from '../support/fixture-servers.js';
import { useTestHost } from '../support/test-host.js';

describe('host.run from the warm isolate pool (warmIsolates)', function () {
  this.timeout(30_000);
  const t = useTestHost({ fault: faultEntry() }, { options: { configPath: 'mcp.json', warmIsolates: 2 } });

  it('a run in a sandbox made ahead calls a real server, outputs and logs reach its record, and the next run starts clean', async () => {
    const first = await t.host.run(
      'globalThis.left = 1; console.log("one"); return (await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "a" } })).content[0].text',
    );
    assert.equal(first.ok, true, JSON.stringify(first.error));
    // Made after the first run ended: the next runs take them.
    await sleep(100);
    const [second, third] = await Promise.all(
      ['b', 'c'].map((text) =>
        t.host.run(`text(typeof left); return (await tools.mcp_call({ server: "fault", tool: "echo", arguments: { text: "${text}" } })).content[0].text`),
      ),
    );
    assert.deepEqual([first.result, second?.result, third?.result], ['a', 'b', 'c']);
    assert.deepEqual(first.logs, [{ level: 'log', text: 'one' }]);
    assert.deepEqual(second?.outputs, [{ type: 'text', text: 'undefined' }]);
    assert.deepEqual(third?.outputs, [{ type: 'text', text: 'undefined' }]);
    assert.equal(second?.calls, 1);
  });

  it('warmIsolates 0 turns the pool off; a bad value is refused when the host is made', async () => {
    const off = t.open({ warmIsolates: 0 });
    assert.equal((await off.run('return 1')).result, 1);
    assert.throws(() => createHost({ cwd: t.dir, warmIsolates: -1 }), TypeError);
    assert.throws(() => createHost({ cwd: t.dir, warmIsolates: 2.5 }), TypeError);
  });

  it('after close a run still runs, in an isolate of its own', async () => {
    const host = t.open();
    await host.run('return 1');
    await sleep(50);
    await host.close();
    assert.equal((await host.run('return 2')).result, 2);
  });
});
