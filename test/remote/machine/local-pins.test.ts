import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalMachine } from '../../../src/remote/machine/index.js';
import type { MachineProcess } from '../../../src/remote/machine/index.js';

async function outputOf(child: MachineProcess): Promise<{ stdout: string; code: number | undefined; error: Error | undefined }> {
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.resume();
  child.stdin.end();
  const exit = await child.exited;
  return { stdout, code: exit.code, error: exit.error };
}

describe('LocalMachine: pinned paths are opened before the command starts and refused when they lead elsewhere', () => {
  let dir: string;
  let real: string;
  let link: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'berry-pins-'));
    real = join(dir, 'real');
    mkdirSync(join(real, 'sub'), { recursive: true });
    link = join(dir, 'link');
    symlinkSync(real, link);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('hands each pin to the command at its own descriptor (gaps allowed)', async () => {
    const child = await new LocalMachine().spawn({
      command: '/bin/sh',
      args: ['-c', 'readlink /proc/self/fd/3; readlink /proc/self/fd/5'],
      env: {},
      cwd: '/',
      pins: [
        { fd: 3, path: real },
        { fd: 5, path: join(real, 'sub') },
      ],
    });
    const result = await outputOf(child);
    assert.equal(result.code, 0, String(result.error));
    assert.deepEqual(result.stdout.trim().split('\n'), [real, join(real, 'sub')]);
  });

  it('a pin whose path is, or passes through, a symlink starts nothing: EBINDMOVED naming the path and where it led', async () => {
    for (const path of [link, join(link, 'sub')]) {
      const child = await new LocalMachine().spawn({ command: '/bin/sh', args: ['-c', 'echo started'], env: {}, cwd: '/', pins: [{ fd: 3, path }] });
      const result = await outputOf(child);
      assert.equal(child.pid, undefined);
      assert.equal(result.stdout, '');
      assert.equal((result.error as NodeJS.ErrnoException | undefined)?.code, 'EBINDMOVED');
      assert.ok(result.error?.message.includes(path) && result.error.message.includes(real), result.error?.message);
    }
  });
});
