import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchScript, shQuote, SSH_LAUNCH_COMMAND } from '../../../src/remote/machine/ssh/ssh-process.js';

/** Runs the launcher exactly as sshd would, through a local login shell, with the preamble on stdin. */
function launchLocally(shell: string, preamble: string, input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ['-c', SSH_LAUNCH_COMMAND], { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(preamble + input);
  });
}

describe('ssh-process launcher (run locally)', () => {
  const tricky = `it's "$HOME" \`id\` \\ \n second line\n`;

  it('keeps user data off the launch command line', () => {
    assert.doesNotMatch(SSH_LAUNCH_COMMAND.slice("exec sh -c '".length, -1), /'/);
    assert.equal(shQuote("a'b"), `'a'\\''b'`);
  });

  for (const shell of ['sh', 'bash']) {
    it(`exports env, cds, passes args intact and leaves stdin to the command (${shell})`, async () => {
      const preamble = launchScript({
        command: 'node',
        args: ['-e', 'process.stdin.pipe(process.stdout); console.log(JSON.stringify([process.cwd(), process.env.TRICKY, process.argv.slice(1)]))', tricky, ''],
        env: { TRICKY: tricky },
        cwd: '/tmp',
      });
      const result = await launchLocally(shell, preamble, 'after-preamble\n');
      const lines = result.stdout.split('\n');
      assert.match(lines[0]!, /^@berry-mcp pgid \d+$/);
      assert.equal(lines[1], '@berry-mcp exec');
      assert.deepEqual(JSON.parse(lines[2]!), ['/tmp', tricky, [tricky, '']]);
      assert.equal(lines[3], 'after-preamble');
      assert.equal(result.code, 0, result.stderr);
    });
  }

  it('fails with 127 for a missing command and 126 for a missing directory, before the exec mark', async () => {
    const missing = await launchLocally('sh', launchScript({ command: 'no-such-command-xyz', args: [], env: {}, cwd: '/tmp' }));
    assert.equal(missing.code, 127);
    assert.match(missing.stderr, /command not found: no-such-command-xyz/);
    assert.doesNotMatch(missing.stdout, /@berry-mcp exec/);
    const noDir = await launchLocally('sh', launchScript({ command: 'true', args: [], env: {}, cwd: '/no/such/dir' }));
    assert.equal(noDir.code, 126);
    assert.match(noDir.stderr, /cannot change to working directory \/no\/such\/dir/);
  });

  for (const shell of ['sh', 'bash']) {
    it(`opens pins at their descriptors, and refuses (124, before the exec mark) one that leads elsewhere (${shell})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'berry-launch-pins-'));
      try {
        mkdirSync(join(dir, 'real', 'sub'), { recursive: true });
        symlinkSync(join(dir, 'real'), join(dir, 'link'));
        const run = (path: string): ReturnType<typeof launchLocally> =>
          launchLocally(
            shell,
            launchScript({ command: 'sh', args: ['-c', 'readlink /proc/self/fd/7; echo stderr-still-there >&2'], env: {}, cwd: '/', pins: [{ fd: 7, path }] }),
          );
        const pinned = await run(join(dir, 'real', 'sub'));
        assert.equal(pinned.code, 0, pinned.stderr);
        assert.equal(pinned.stdout.split('\n')[2], join(dir, 'real', 'sub'));
        assert.match(pinned.stderr, /stderr-still-there/);
        for (const path of [join(dir, 'link'), join(dir, 'link', 'sub'), join(dir, 'missing')]) {
          const refused = await run(path);
          assert.equal(refused.code, 124, refused.stderr);
          assert.doesNotMatch(refused.stdout, /@berry-mcp exec/);
          assert.ok(refused.stderr.includes(path), refused.stderr);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('rejects a pin outside fds 3-9 or with a relative path', () => {
    for (const pin of [
      { fd: 2, path: '/tmp' },
      { fd: 10, path: '/tmp' },
      { fd: 3, path: 'tmp' },
    ]) {
      assert.throws(() => launchScript({ command: 'true', args: [], env: {}, cwd: '/', pins: [pin] }), { code: 'ERR_INVALID_ARG_VALUE' });
    }
  });

  it('rejects environment names that are not identifiers', () => {
    assert.throws(() => launchScript({ command: 'true', args: [], env: { 'A=B': 'x' }, cwd: '/' }), { code: 'ERR_INVALID_ARG_VALUE' });
    assert.throws(() => launchScript({ command: 'true', args: [], env: { 'A;rm': 'x' }, cwd: '/' }), /Invalid environment variable name/);
  });
});
