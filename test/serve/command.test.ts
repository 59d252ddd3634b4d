import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BIN } from './helpers.js';

function serve(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe('berry-mcp serve: the command line', function () {
  this.timeout(30_000);

  it('prints its usage with --help', async () => {
    const { code, stdout } = await serve(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /--http \[HOST:\]PORT/);
    assert.match(stdout, /--max-concurrency N/);
  });

  it('refuses bad options with status 2 and says what to pass', async () => {
    const cases: [string[], RegExp][] = [
      [['--max-concurrency', '0'], /--max-concurrency needs a positive number, got "0"/],
      [['--max-concurrency', '1.5'], /--max-concurrency needs a whole number/],
      [['--http', 'nope'], /--http expects \[HOST:\]PORT/],
      [['--allow-origin', 'https://a.example'], /--allow-origin needs --http/],
      [['--timeout', 'abc'], /--timeout needs a positive number, got "abc"/],
      [['extra'], /"serve" takes no arguments/],
      [['--output-limit', '10'], /--output-limit needs a whole number of bytes, at least 1024, got 10/],
      [['--identity', '/k'], /--identity needs --ssh/],
    ];
    for (const [args, pattern] of cases) {
      const { code, stderr } = await serve(args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, pattern);
    }
  });

  it('exits at once when its stdin is already closed', async () => {
    const { code, stdout } = await serve(['--config', '/nonexistent/mcp.json']);
    assert.equal(code, 0);
    assert.equal(stdout, '', 'nothing but MCP on stdout');
  });
});
