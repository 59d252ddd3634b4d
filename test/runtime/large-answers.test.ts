import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { FIXTURES_DIR } from '../support/paths.js';

interface CaseLine {
  readonly name: string;
  readonly ok?: boolean;
  readonly result?: unknown;
  readonly code?: string;
  readonly outcome?: unknown;
  readonly disposed?: boolean;
}

interface Failed {
  readonly failed: { readonly code: string; readonly name: string; readonly message: string };
  readonly after: string;
}

/**
 * Host answers too large for the run's memory. They used to abort the process that ran them
 * (ivm::FatalRuntimeError, SIGABRT), so they run in a child: test/fixtures/large-answers.mjs.
 */
describe('runtime: answers too large for the sandbox fail their call, never the host', function () {
  this.timeout(120_000);
  const lines = new Map<string, CaseLine>();
  let status: number | null = null;
  let stderr = '';

  before(() => {
    const child = spawnSync(process.execPath, ['--no-node-snapshot', join(FIXTURES_DIR, 'large-answers.mjs')], {
      encoding: 'utf8',
      timeout: 100_000,
      maxBuffer: 1 << 22,
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    });
    status = child.status;
    stderr = child.stderr;
    for (const line of child.stdout.trim().split('\n').filter(Boolean)) {
      const parsed = JSON.parse(line) as CaseLine;
      lines.set(parsed.name, parsed);
    }
  });

  const get = (name: string): CaseLine => {
    const line = lines.get(name);
    assert.ok(line, `no line for ${name}: exit ${status}, stderr ${stderr.slice(-600)}`);
    return line;
  };

  it('the process lives through every case and runs a normal script after them', () => {
    assert.equal(status, 0, `exit ${status}: ${stderr.slice(-600)}`);
    assert.equal(get('after').result, 42);
  });

  it('a 24 MB answer at 16 MB fails that call with MCP_RESULT_TOO_LARGE, naming size and limit; the next call works', () => {
    const line = get('oneByte');
    assert.equal(line.ok, true);
    const { failed, after } = line.result as Failed;
    assert.equal(failed.code, 'MCP_RESULT_TOO_LARGE');
    assert.equal(failed.name, 'RangeError');
    assert.match(failed.message, /^tools\.big\(\): the answer is 24\.0 MB \(\d+ bytes\)/);
    assert.match(failed.message, /of its 16 MB memory limit \(memoryLimitMb\) free\. Nothing was copied/);
    assert.match(failed.message, /Ask for less in one call .*, or raise the memory limit\.$/);
    assert.equal(after, 'fine');
  });

  it('counts two bytes a character once one is past Latin-1', () => {
    assert.equal(get('latin1').result, 7 * 1024 * 1024);
    assert.equal((get('twoByte').result as Failed).failed.code, 'MCP_RESULT_TOO_LARGE');
    assert.match((get('twoByte').result as Failed).failed.message, /the answer is 14\.0 MB/);
  });

  it('at the default 128 MB, a 130 MB answer is refused the same way', () => {
    const { failed, after } = get('atDefault').result as Failed;
    assert.equal(failed.code, 'MCP_RESULT_TOO_LARGE');
    assert.match(failed.message, /of its 128 MB memory limit/);
    assert.equal(after, 'fine');
  });

  it('counts what parsing adds: 10 MB of small objects is refused at 16 MB, not left to exhaust the heap', () => {
    assert.equal(get('grows').result, 'MCP_RESULT_TOO_LARGE');
  });

  it('counts what the run already holds: answers kept, or arriving together, until the memory is spoken for', () => {
    const [kept, code] = get('kept').result as [number, string];
    assert.equal(code, 'MCP_RESULT_TOO_LARGE');
    assert.ok(kept >= 8 && kept <= 15, `kept ${kept} answers of 1 MB at 16 MB`);
    const concurrent = get('concurrent').result as string[];
    const fitted = concurrent.filter((c) => c === 'ok').length;
    assert.ok(fitted >= 2 && fitted <= 5, concurrent.join());
    assert.ok(
      concurrent.every((c) => c === 'ok' || c === 'MCP_RESULT_TOO_LARGE'),
      concurrent.join(),
    );
  });

  it('answers dropped as they come do not add up: 20 × 4 MB at 16 MB all arrive', () => {
    assert.equal(get('streamed').result, 20 * 4 * 1024 * 1024);
  });

  it('a host error with a 10 MB message crosses cut to 64 Ki characters, its code kept', () => {
    const [code, length] = get('hugeError').result as [string, number];
    assert.equal(code, 'X_BIG');
    assert.ok(length <= 65_536 + 20, `message of ${length} characters`);
  });

  it('past the gate, an answer that does not fit ends its run (isolate disposed), not the process', () => {
    const line = get('backstop');
    assert.equal(line.disposed, true, JSON.stringify(line));
  });
});
