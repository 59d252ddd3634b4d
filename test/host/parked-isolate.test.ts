import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../support/paths.js';

/**
 * The library's signal that the process now holds a parked isolate (HostOptions.onParkedIsolate).
 * A parked isolate makes the process unable to exit normally, so the host runs in a child process
 * that ends itself with SIGKILL, as an embedder is told to.
 */
describe('createHost({ onParkedIsolate }): the embedder hears when its process holds a parked isolate', function () {
  this.timeout(120_000);

  it('is called once per newly parked isolate with the count, after the run; the host keeps working', () => {
    const entry = join(PROJECT_ROOT, 'dist/src/index.js');
    const program = `
      const { createHost, parkedIsolates } = await import(${JSON.stringify(entry)});
      const events = [];
      const host = createHost({ configPath: '/nonexistent/mcp.json', onParkedIsolate: (e) => events.push(e) });
      const park = 'const m = new Map(); for (let i = 0; i < 2 ** 26; i++) m.set(i, 1);';
      const out = { before: parkedIsolates() };
      out.first = (await host.run(park, { memoryLimitMb: 32 })).error?.code;
      out.eventsAfterFirst = events.length;
      out.plain = (await host.run('return 6 * 7')).result;
      out.eventsAfterPlain = events.length;
      out.second = (await host.run(park, { memoryLimitMb: 32 })).error?.code;
      out.events = events;
      out.after = parkedIsolates();
      console.log(JSON.stringify(out));
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', program], {
      encoding: 'utf8',
      timeout: 100_000,
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    });
    assert.equal(child.signal, 'SIGKILL', `exit ${child.status} ${child.signal}: ${child.stderr.slice(-2000)}`);
    const out = JSON.parse(child.stdout) as Record<string, unknown>;
    assert.deepEqual(out, {
      before: 0,
      first: 'SCRIPT_MEMORY_LIMIT',
      eventsAfterFirst: 1,
      plain: 42,
      eventsAfterPlain: 1,
      second: 'SCRIPT_MEMORY_LIMIT',
      events: [{ parkedIsolates: 1 }, { parkedIsolates: 2 }],
      after: 2,
    });
  });
});
