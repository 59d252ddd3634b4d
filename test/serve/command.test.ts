import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BIN, run, serveStdio } from '../support/berry-serve.js';
import { everythingPath } from '../support/paths.js';
import { type CliResult, runProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { writeConfig } from '../support/write-config.js';

function serve(args: string[]): Promise<CliResult> {
  return runProcess(process.execPath, [BIN, 'serve', ...args], { cwd: process.cwd() });
}

describe('berry-mcp serve: the command line', function () {
  this.timeout(30_000);

  it('prints its usage with --help', async () => {
    const { code, stdout } = await serve(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /--http \[HOST:\]PORT/);
    assert.match(stdout, /--max-concurrency N/);
    assert.match(stdout, /--max-queued-runs N .*\(default 8\)/);
    assert.match(stdout, /--max-sessions N .*\(default 16\)/);
    assert.match(stdout, /--token-file FILE .*each is a holder/);
    assert.match(stdout, /--max-client-concurrency N .*\(default 3\/4 of --max-concurrency, at least 1\)/);
    assert.match(stdout, /--max-holder-concurrency N/);
    assert.match(stdout, /--max-holder-sessions N/);
    assert.match(stdout, /--max-holder-streams N .*\(default 16\)/);
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
      [['--max-queued-runs', '2.5'], /--max-queued-runs needs a whole number/],
      [['--max-sessions', '0', '--http', '0'], /--max-sessions needs a positive number, got "0"/],
      [['--max-sessions', '4'], /--max-sessions needs --http/],
      [['--max-holder-streams', '4'], /--max-holder-streams needs --http/],
      [['--max-client-concurrency', '2'], /--max-client-concurrency needs --http/],
      [['--token-file', 'tokens'], /--token-file needs --http/],
      [['--max-holder-sessions', '0', '--http', '0'], /--max-holder-sessions needs a positive number, got "0"/],
      [
        ['--http', '0', '--max-concurrency', '4', '--max-holder-concurrency', '5'],
        /maxHolderConcurrency \(serve --max-holder-concurrency\) must be a whole number from 1 to maxConcurrency \(4\), got 5/,
      ],
      [
        ['--http', '0', '--max-sessions', '4', '--max-holder-sessions', '5'],
        /maxHolderSessions \(serve --max-holder-sessions\) must be a whole number from 1 to maxSessions \(4\), got 5/,
      ],
      [['--http', '0', '--token-file', '/nonexistent/tokens'], /--token-file \/nonexistent\/tokens: cannot read it \(ENOENT\)/],
    ];
    for (const [args, pattern] of cases) {
      const { code, stderr } = await serve(args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, pattern);
    }
  });

  it('survives lines on stdin that are not JSON-RPC and still answers initialize', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--config', '/nonexistent/mcp.json'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write('not json at all\n{"jsonrpc":"2.0","id":1}\n[1,2,3]\n');
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
    );
    const deadline = Date.now() + 20_000;
    while (!stdout.includes('"id":7') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    assert.equal(await exited, 0);
    const answer = stdout.split('\n').find((line) => line.includes('"id":7'));
    assert.ok(answer, stdout);
    assert.equal((JSON.parse(answer) as { result: { serverInfo: { name: string } } }).result.serverInfo.name, 'berry-mcp');
  });

  it('--verbose logs server lifecycle to stderr and leaves stdout to MCP', async () => {
    const tmp = tempDir('berry-serve-verbose-');
    writeConfig(tmp.dir, { everything: { command: process.execPath, args: [everythingPath] } });
    const serve = await serveStdio(['--config', 'mcp.json', '--verbose'], { cwd: tmp.dir });
    try {
      const result = await run(
        serve.client,
        "return (await tools.mcp_call({ server: 'everything', tool: 'echo', arguments: { message: 'v' } })).content[0].text",
      );
      assert.equal(result.structuredContent?.['result'], 'Echo: v');
      assert.match(serve.stderr(), /berry-mcp serve: \[everything\] /);
    } finally {
      await serve.close();
      tmp.cleanup();
    }
  });

  it('exits at once when its stdin is already closed', async () => {
    const { code, stdout } = await serve(['--config', '/nonexistent/mcp.json']);
    assert.equal(code, 0);
    assert.equal(stdout, '', 'nothing but MCP on stdout');
  });
});
