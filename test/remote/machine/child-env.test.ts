import assert from 'node:assert/strict';
import { finished } from 'node:stream/promises';
import { LocalMachine } from '../../../src/remote/machine/index.js';

async function childEnvOf(machine: LocalMachine, env: Record<string, string>): Promise<Record<string, string>> {
  const p = await machine.spawn({ command: process.execPath, args: ['-e', 'process.stdout.write(JSON.stringify(process.env))'], env, cwd: process.cwd() });
  p.stdin.end();
  let out = '';
  p.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  p.stderr.resume();
  await Promise.all([p.exited, finished(p.stdout)]);
  return JSON.parse(out) as Record<string, string>;
}

// Whatever sets them (serve, the launcher, a library user), berry-mcp's own variables stay with it.
describe('LocalMachine.spawn: the inherited environment', () => {
  const saved = { ...process.env };
  after(() => {
    for (const name of ['BERRY_SERVE_TOKEN', 'BERRY_MCP_PARENT_FD', 'BERRY_TEST_PLAIN']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it("keeps the user's variables, drops berry-mcp's own, and lets the entry's env override", async () => {
    process.env['BERRY_SERVE_TOKEN'] = 'never-inherited-token';
    process.env['BERRY_MCP_PARENT_FD'] = '3';
    process.env['BERRY_TEST_PLAIN'] = 'kept';
    const machine = new LocalMachine();
    const env = await childEnvOf(machine, { EXTRA: 'added', BERRY_TEST_PLAIN: 'overridden' });
    await machine.close();
    assert.equal(env['BERRY_SERVE_TOKEN'], undefined);
    assert.equal(env['BERRY_MCP_PARENT_FD'], undefined);
    assert.equal(env['BERRY_TEST_PLAIN'], 'overridden');
    assert.equal(env['EXTRA'], 'added');
    assert.equal(env['PATH'], process.env['PATH']);
    // The spawning process's own environment is untouched.
    assert.equal(process.env['BERRY_SERVE_TOKEN'], 'never-inherited-token');
  });
});
